package dev.racelab.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fixed log of events, as a recording opened in the window holds it: each field in an array of
 * primitives instead of an {@link Event} object per event. An event costs 23 bytes here (its time
 * and value, 8 each; its lane, 2; its kind, 1; its subject, an index of 4 into a table of the
 * distinct subjects) against 52 as an object in a list (the object's 48 and the list's reference):
 * a million events take 23 MB, not 52. {@link #get} makes the event asked for anew, equal to the
 * one added (its subject an equal string, the one every event of that subject shares).
 *
 * <p>The arrays are chunks of {@link #CHUNK} events, so the log grows without copying what it has
 * and no array is large enough for G1 to place it in regions of its own (half a region, 512 KB
 * for a heap under 4 GB, is where that starts; the largest chunk here is 256 KB).
 *
 * <p>Built on one thread by a {@link Builder}; once built it never changes, and is safe to read from
 * any thread that received it safely (the window's reader hands it over through a {@code Task}).
 */
public final class PackedEventLog implements EventLog {

    private static final int CHUNK_BITS = 15;
    /** Events a chunk holds: 32,768. */
    static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MASK = CHUNK - 1;
    /** How many distinct subjects are shared through the table's map; later new ones are each kept once, as read. */
    private static final int SHARED = 1 << 14;
    private static final int NO_SUBJECT = -1;
    private static final EventKind[] KINDS = EventKind.values();

    private final Chunk[] chunks;
    private final String[] subjects;
    private final long size;
    private final long dropped;

    private PackedEventLog(Chunk[] chunks, String[] subjects, long size, long dropped) {
        this.chunks = chunks;
        this.subjects = subjects;
        this.size = size;
        this.dropped = dropped;
    }

    @Override
    public Event get(long seq) {
        if (seq < 0 || seq >= size) {
            return null;
        }
        Chunk chunk = chunks[(int) (seq >>> CHUNK_BITS)];
        int i = (int) (seq & MASK);
        int subject = chunk.subject[i];
        return new Event(seq, chunk.nanos[i], chunk.actor[i], KINDS[chunk.kind[i]],
                subject == NO_SUBJECT ? null : subjects[subject], chunk.value[i]);
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public long dropped() {
        return dropped;
    }

    /** One chunk's columns; the last chunk of a built log is cut to the events it holds. */
    private static final class Chunk {
        final long[] nanos;
        final long[] value;
        final short[] actor;
        final byte[] kind;
        final int[] subject;

        Chunk(int length) {
            nanos = new long[length];
            value = new long[length];
            actor = new short[length];
            kind = new byte[length];
            subject = new int[length];
        }

        private Chunk(Chunk full, int length) {
            nanos = Arrays.copyOf(full.nanos, length);
            value = Arrays.copyOf(full.value, length);
            actor = Arrays.copyOf(full.actor, length);
            kind = Arrays.copyOf(full.kind, length);
            subject = Arrays.copyOf(full.subject, length);
        }

        Chunk cut(int length) {
            return length == nanos.length ? this : new Chunk(this, length);
        }
    }

    /** Takes events in sequence order from 0, then makes the log. One thread. */
    public static final class Builder {

        private final List<Chunk> chunks = new ArrayList<>();
        private final List<String> subjects = new ArrayList<>();
        private final Map<String, Integer> subjectIndex = new HashMap<>();
        private long size;

        /**
         * Adds {@code event}, which must be the next in sequence.
         *
         * @throws IllegalArgumentException if its sequence number is not the log's size, or its lane
         *                                  is outside 0–32767 (a recording's are 0–4095)
         */
        public void add(Event event) {
            if (event.seq() != size) {
                throw new IllegalArgumentException("event " + size + " has sequence number " + event.seq());
            }
            if (event.actor() < 0 || event.actor() > Short.MAX_VALUE) {
                throw new IllegalArgumentException("event " + size + " is on lane " + event.actor()
                        + ", outside 0-" + Short.MAX_VALUE);
            }
            int i = (int) (size & MASK);
            if (i == 0) {
                chunks.add(new Chunk(CHUNK));
            }
            Chunk chunk = chunks.get(chunks.size() - 1);
            chunk.nanos[i] = event.nanos();
            chunk.value[i] = event.value();
            chunk.actor[i] = (short) event.actor();
            chunk.kind[i] = (byte) event.kind().ordinal();
            chunk.subject[i] = subject(event.subject());
            size++;
        }

        /** How many events were added. */
        public long size() {
            return size;
        }

        /** The log of the events added; the builder is not to be used after. */
        public PackedEventLog build(long dropped) {
            Chunk[] built = chunks.toArray(Chunk[]::new);
            int last = (int) (size & MASK);
            if (last != 0) {
                built[built.length - 1] = built[built.length - 1].cut(last);
            }
            return new PackedEventLog(built, subjects.toArray(String[]::new), size, dropped);
        }

        private int subject(String subject) {
            if (subject == null) {
                return NO_SUBJECT;
            }
            Integer shared = subjectIndex.get(subject);
            if (shared != null) {
                return shared;
            }
            int index = subjects.size();
            subjects.add(subject);
            if (subjectIndex.size() < SHARED) {
                subjectIndex.put(subject, index);
            }
            return index;
        }
    }
}
