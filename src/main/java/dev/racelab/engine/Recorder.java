package dev.racelab.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The run's event log: many writers, any number of readers, no lock anywhere.
 *
 * <p>A writer claims the next sequence number with one atomic increment and stores its event in
 * that slot with release semantics. Readers walk the slots in order and stop at the first empty
 * one: a slot can be claimed but not yet filled for a moment, and a reader must not skip it. So
 * what a reader sees is always a gap-free prefix of the log, in sequence order.
 *
 * <p>Slots live in fixed-size segments allocated on first use, so a short run costs little
 * memory and a long one never copies.
 *
 * <p><b>When full.</b> The log holds at most {@code capacity} events. The last {@link #RESERVE}
 * slots are kept for {@linkplain EventKind#kept() kinds the verdict depends on} (violations,
 * errors, the run's end); once the log reaches {@code capacity - RESERVE}, ordinary events are
 * dropped and counted in {@link #dropped()}. The oracles never depend on ordinary events, so a
 * full log changes what the timeline can show, never the verdict.
 */
public final class Recorder implements EventLog {

    /** Default capacity: four million events, about 200 MB. */
    public static final int DEFAULT_CAPACITY = 4_000_000;
    /** Slots at the end of the log only kept kinds may use. */
    public static final int RESERVE = 65_536;

    private static final int SEGMENT_BITS = 16;
    private static final int SEGMENT_SIZE = 1 << SEGMENT_BITS;
    private static final int SEGMENT_MASK = SEGMENT_SIZE - 1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Event[].class);

    private final Clock clock;
    private final int capacity;
    private final int ordinaryLimit;
    private final AtomicReferenceArray<Event[]> segments;
    private final AtomicLong claimed = new AtomicLong();
    private final LongAdder dropped = new LongAdder();
    /** A lower bound of {@link #size()}, advanced by readers so each scan starts where the last ended. */
    private final AtomicLong visible = new AtomicLong();

    public Recorder(Clock clock) {
        this(clock, DEFAULT_CAPACITY);
    }

    public Recorder(Clock clock, int capacity) {
        if (capacity <= RESERVE) {
            throw new IllegalArgumentException("capacity must exceed the reserve of " + RESERVE);
        }
        this.clock = clock;
        this.capacity = capacity;
        this.ordinaryLimit = capacity - RESERVE;
        this.segments = new AtomicReferenceArray<>((capacity + SEGMENT_SIZE - 1) >>> SEGMENT_BITS);
    }

    public Clock clock() {
        return clock;
    }

    /**
     * Records an event now. Safe from any thread; never blocks.
     *
     * @return the event, or null if the log was full and it was dropped
     */
    public Event record(int actor, EventKind kind, String subject, long value) {
        if (!kind.kept() && claimed.get() >= ordinaryLimit) {
            dropped.increment();
            return null;
        }
        long seq = claimed.getAndIncrement();
        if (seq >= capacity) {
            dropped.increment();
            return null;
        }
        Event event = new Event(seq, clock.nanos(), actor, kind, subject, value);
        SLOT.setRelease(segment((int) seq), (int) seq & SEGMENT_MASK, event);
        return event;
    }

    /** Records a state change of {@code actor}. */
    public Event state(int actor, ActorState state, String subject) {
        return record(actor, EventKind.STATE, subject, state.ordinal());
    }

    /** The event at {@code seq}, or null if it is not (yet) in the log. */
    public Event get(long seq) {
        if (seq < 0 || seq >= capacity) {
            return null;
        }
        Event[] segment = segments.get((int) (seq >>> SEGMENT_BITS));
        return segment == null ? null : (Event) SLOT.getAcquire(segment, (int) seq & SEGMENT_MASK);
    }

    /**
     * Hands every event from {@code from} up to the first one not yet stored to {@code sink}, at
     * most {@code max} of them, and returns the sequence number to continue from.
     */
    public long drain(long from, int max, Consumer<Event> sink) {
        long seq = from;
        long end = from + max;
        Event event;
        while (seq < end && (event = get(seq)) != null) {
            sink.accept(event);
            seq++;
        }
        return seq;
    }

    /** The length of the gap-free prefix that readers can see right now. */
    public long size() {
        long seq = visible.get();
        while (get(seq) != null) {
            seq++;
        }
        final long seen = seq;
        return visible.accumulateAndGet(seen, Math::max);
    }

    /** Events dropped because the log was full. */
    public long dropped() {
        return dropped.sum();
    }

    public int capacity() {
        return capacity;
    }

    /** A copy of every event readers can see now. */
    public List<Event> snapshot() {
        List<Event> events = new ArrayList<>();
        drain(0, Integer.MAX_VALUE, events::add);
        return events;
    }

    private Event[] segment(int seq) {
        int index = seq >>> SEGMENT_BITS;
        Event[] segment = segments.get(index);
        if (segment == null) {
            Event[] fresh = new Event[SEGMENT_SIZE];
            segment = segments.compareAndExchange(index, null, fresh);
            if (segment == null) {
                segment = fresh;
            }
        }
        return segment;
    }
}
