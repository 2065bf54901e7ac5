package dev.racelab.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * The run's event log: many writers, any number of readers, no lock anywhere.
 *
 * <p>A writer claims the next sequence number with one atomic increment and stores its event in
 * that slot with release semantics. Readers walk the slots in order and stop at the first empty
 * one: a slot can be claimed but not yet filled for a moment, and a reader must not skip it. So
 * what a reader sees is always a gap-free prefix of the log, in sequence order.
 *
 * <p><b>Every claimed slot gets filled.</b> A slot left empty would stop every reader there for
 * good, so the writer reads the clock before it claims, and between claiming and filling it only
 * allocates: the event, and now and then the slot's segment. If an allocation fails, the writer
 * fills its slot with a lost-event marker, or, if it was the segment that could not be allocated,
 * marks the whole segment lost, and rethrows. Readers see a lost slot as a placeholder event (see
 * {@link #get}) and pass it; the other writers of a lost segment drop their events.
 *
 * <p>Slots live in fixed-size segments allocated on first use, so a short run costs little
 * memory and a long one never copies. The writer of a segment's first slot allocates the next
 * segment once its own event is stored, a segment's worth of events before anyone needs it: so
 * writers almost never allocate a segment after claiming, and they do not all allocate one each
 * and throw all but one away when they cross into a new segment together.
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
    static final int SEGMENT_SIZE = 1 << SEGMENT_BITS;
    private static final int SEGMENT_MASK = SEGMENT_SIZE - 1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Event[].class);

    /** The subject of the placeholder readers get for a lost event. */
    static final String LOST_SUBJECT = "event lost";
    /** Fills a slot whose writer failed after claiming it; readers get a placeholder instead. */
    private static final Event LOST = new Event(-1, 0, Actor.RUN_ID, EventKind.NOTE, LOST_SUBJECT, 0);
    /** Stands for a segment that could not be allocated: every claimed slot in it is lost. */
    private static final Event[] LOST_SEGMENT = new Event[0];

    private final Clock clock;
    private final int capacity;
    private final int ordinaryLimit;
    /** When the recorder was made: the time of a lost event with no event before it. */
    private final long createdNanos;
    /** Each entry goes from null to a segment or to {@link #LOST_SEGMENT}, once. */
    private final AtomicReferenceArray<Event[]> segments;
    private final IntFunction<Event[]> newSegment;
    private final AtomicLong claimed = new AtomicLong();
    private final LongAdder dropped = new LongAdder();
    /** A lower bound of {@link #size()}, advanced by readers so each scan starts where the last ended. */
    private final AtomicLong visible = new AtomicLong();

    public Recorder(Clock clock) {
        this(clock, DEFAULT_CAPACITY);
    }

    public Recorder(Clock clock, int capacity) {
        this(clock, capacity, index -> new Event[SEGMENT_SIZE]);
    }

    /** With {@code newSegment} allocating the segment with a given index, so tests can make it fail. */
    Recorder(Clock clock, int capacity, IntFunction<Event[]> newSegment) {
        if (capacity <= RESERVE) {
            throw new IllegalArgumentException("capacity must exceed the reserve of " + RESERVE);
        }
        this.clock = clock;
        this.capacity = capacity;
        this.ordinaryLimit = capacity - RESERVE;
        this.createdNanos = clock.nanos();
        this.segments = new AtomicReferenceArray<>((capacity + SEGMENT_SIZE - 1) >>> SEGMENT_BITS);
        this.newSegment = newSegment;
    }

    public Clock clock() {
        return clock;
    }

    /**
     * Records an event now. Safe from any thread; never blocks.
     *
     * <p>If the clock throws, nothing is recorded and the exception reaches the caller. If
     * allocating the event or its segment fails, the error reaches the caller and readers find a
     * lost-event placeholder where the event would have been.
     *
     * @return the event, or null if it was dropped (see {@link #dropped()})
     */
    public Event record(int actor, EventKind kind, String subject, long value) {
        if (!kind.kept() && claimed.get() >= ordinaryLimit) {
            dropped.increment();
            return null;
        }
        return store(clock.nanos(), actor, kind, subject, value);
    }

    /**
     * Records an event that happened at {@code nanos} on this recorder's clock, somewhere else: on
     * another machine of a class, whose clock the caller has aligned to this one. Each lane's events
     * still come in their order; another lane's may be later than it.
     */
    public Event recordAt(long nanos, int actor, EventKind kind, String subject, long value) {
        if (!kind.kept() && claimed.get() >= ordinaryLimit) {
            dropped.increment();
            return null;
        }
        return store(nanos, actor, kind, subject, value);
    }

    private Event store(long nanos, int actor, EventKind kind, String subject, long value) {
        long seq = claimed.getAndIncrement();
        if (seq >= capacity) {
            dropped.increment();
            return null;
        }
        int slot = (int) seq;
        Event event;
        try {
            Event[] segment = segment(slot >>> SEGMENT_BITS);
            if (segment == LOST_SEGMENT) {
                dropped.increment();
                return null;
            }
            event = new Event(seq, nanos, actor, kind, subject, value);
            SLOT.setRelease(segment, slot & SEGMENT_MASK, event);
        } catch (Throwable failure) {
            markLost(slot);
            throw failure;
        }
        if ((slot & SEGMENT_MASK) == 0) {
            allocateAhead((slot >>> SEGMENT_BITS) + 1);
        }
        return event;
    }

    /** Records a state change of {@code actor}. */
    public Event state(int actor, ActorState state, String subject) {
        return record(actor, EventKind.STATE, subject, state.ordinal());
    }

    /**
     * The event at {@code seq}, or null if it is not (yet) in the log.
     *
     * <p>Where an event was lost (see {@link #record}) this returns a placeholder: a
     * {@link EventKind#NOTE} on the run's lane ({@link Actor#RUN_ID}) with subject
     * {@code "event lost"}, value 0, and the time of the nearest earlier event, or of the
     * recorder's creation if there is none. Its time is not known while a slot between it and that
     * event is still empty, so until then it reads as null, like an event not yet stored.
     */
    @Override
    public Event get(long seq) {
        if (seq < 0 || seq >= capacity) {
            return null;
        }
        Event[] segment = segments.get((int) (seq >>> SEGMENT_BITS));
        if (segment == null) {
            return null;
        }
        Event event = segment == LOST_SEGMENT
                ? (seq < claimed.get() ? LOST : null)
                : (Event) SLOT.getAcquire(segment, (int) seq & SEGMENT_MASK);
        return event == LOST ? placeholder(seq) : event;
    }

    /** The length of the gap-free prefix that readers can see right now. */
    @Override
    public long size() {
        long seq = visible.get();
        while (get(seq) != null) {
            seq++;
        }
        final long seen = seq;
        return visible.accumulateAndGet(seen, Math::max);
    }

    /**
     * How many slots have been claimed: the events stored, and those their threads are storing
     * now (a reader waiting for every event recorded until now waits for this many).
     */
    public long claimed() {
        return Math.min(claimed.get(), capacity);
    }

    /** Events dropped: because the log was full, or because memory ran out for their segment. */
    @Override
    public long dropped() {
        return dropped.sum();
    }

    public int capacity() {
        return capacity;
    }

    private Event[] segment(int index) {
        Event[] segment = segments.get(index);
        return segment != null ? segment : install(index);
    }

    /** Allocates segment {@code index} unless another writer got there first; returns the one in place. */
    private Event[] install(int index) {
        Event[] fresh = newSegment.apply(index);
        Event[] first = segments.compareAndExchange(index, null, fresh);
        return first == null ? fresh : first;
    }

    /**
     * Allocates segment {@code index} before anyone needs it. Only the writer of the previous
     * segment's first slot calls this, so it rarely races with a writer that needs the segment.
     */
    private void allocateAhead(int index) {
        if (index < segments.length() && segments.get(index) == null) {
            try {
                install(index);
            } catch (OutOfMemoryError e) {
                // This caller's event is stored, so the error is not its to report. The segment's
                // first writer tries again and, if memory is still short, gets the error itself.
            }
        }
    }

    /** Fills claimed slot {@code seq}, whose event could not be stored, so that readers pass it. */
    private void markLost(int seq) {
        Event[] segment = segments.compareAndExchange(seq >>> SEGMENT_BITS, null, LOST_SEGMENT);
        if (segment != null && segment != LOST_SEGMENT) {
            SLOT.setRelease(segment, seq & SEGMENT_MASK, LOST);
        }
    }

    /** The placeholder for the lost event at {@code seq}, or null while its time is unknown. */
    private Event placeholder(long seq) {
        long nanos = createdNanos;
        long before = seq - 1;
        while (before >= 0) {
            Event[] segment = segments.get((int) (before >>> SEGMENT_BITS));
            if (segment == null) {
                return null;
            }
            if (segment == LOST_SEGMENT) {
                before = (before & ~(long) SEGMENT_MASK) - 1;
                continue;
            }
            Event event = (Event) SLOT.getAcquire(segment, (int) before & SEGMENT_MASK);
            if (event == null) {
                return null;
            }
            if (event != LOST) {
                nanos = event.nanos();
                break;
            }
            before--;
        }
        return new Event(seq, nanos, Actor.RUN_ID, EventKind.NOTE, LOST_SUBJECT, 0);
    }
}
