package dev.racelab.engine;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * A run's events in sequence order, as readers see them: live (the {@link Recorder}, still
 * growing) or loaded from a recording (fixed). Sequence numbers are dense from 0.
 */
public interface EventLog {

    /** The event at {@code seq}, or null if it is not (yet) in the log. */
    Event get(long seq);

    /** How many events readers can see now: a gap-free prefix of the log. */
    long size();

    /** Ordinary events the recorder had to drop because it was full. */
    long dropped();

    /**
     * Hands every event from {@code from} up to the first one not yet there to {@code sink}, at
     * most {@code max} of them, and returns the sequence number to continue from.
     */
    default long drain(long from, int max, Consumer<Event> sink) {
        long seq = from;
        long end = from + max;
        Event event;
        while (seq < end && (event = get(seq)) != null) {
            sink.accept(event);
            seq++;
        }
        return seq;
    }

    /**
     * Every event readers can see now, in order, each read as it is reached: a large log is walked
     * without a second copy of it (a million events made into a list take 50 MB more).
     */
    default Iterable<Event> upToNow() {
        long end = size();
        return () -> new Iterator<>() {
            private long seq;

            @Override
            public boolean hasNext() {
                return seq < end;
            }

            @Override
            public Event next() {
                if (seq >= end) {
                    throw new NoSuchElementException();
                }
                return get(seq++);
            }
        };
    }

    /** A copy of every event readers can see now. */
    default List<Event> snapshot() {
        List<Event> events = new ArrayList<>();
        drain(0, Integer.MAX_VALUE, events::add);
        return events;
    }

    /**
     * A fixed log of {@code events}, which must be in sequence order from 0, held packed
     * ({@link PackedEventLog}).
     */
    static EventLog of(List<Event> events, long dropped) {
        PackedEventLog.Builder log = new PackedEventLog.Builder();
        events.forEach(log::add);
        return log.build(dropped);
    }
}
