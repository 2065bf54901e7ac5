package dev.racelab.engine;

/**
 * Where a run's time starts: the moment its workers start ({@link EventKind#RUN_STARTED}). Every
 * time RaceLab shows — the timeline and its hover, a recording's {@code t}, the CSV's {@code
 * time_ms}, the Chrome trace's {@code ts} — counts from it, so one event shows one time
 * everywhere. Connecting to the servers comes before it, at negative times (the timeline draws it
 * at 0). A run that never started counts from its first event other than a lane's announcement.
 *
 * <p>Followed event by event ({@link #see}), the origin is known early: the first such event,
 * until the run's start moves it there once.
 */
public final class TimeOrigin {

    /** No event seen yet that could set the origin. */
    public static final long UNKNOWN = Long.MIN_VALUE;

    private long origin = UNKNOWN;
    private boolean started;

    /** Takes {@code e} into account; says whether the origin moved. */
    public boolean see(Event e) {
        if (!started && e.kind() == EventKind.RUN_STARTED) {
            started = true;
            origin = e.nanos();
            return true;
        }
        if (origin == UNKNOWN && e.kind() != EventKind.ACTOR) {
            origin = e.nanos();
            return true;
        }
        return false;
    }

    /** The origin so far, on the run's clock; {@link #UNKNOWN} before any event that sets one. */
    public long nanos() {
        return origin;
    }

    /** Whether the run's start has been seen: the origin will not move again. */
    public boolean settled() {
        return started;
    }

    /** The origin of the events in {@code log} now, or 0 for a log with nothing to set one. */
    public static long of(EventLog log) {
        TimeOrigin origin = new TimeOrigin();
        long size = log.size();
        for (long seq = 0; seq < size && !origin.settled(); seq++) {
            Event e = log.get(seq);
            if (e == null) {
                break;
            }
            origin.see(e);
        }
        return origin.nanos() == UNKNOWN ? 0 : origin.nanos();
    }

    /** {@code e} with its time counted from {@code origin} (a hand-made file's extremes held at the ends). */
    public static Event shifted(Event e, long origin) {
        if (origin == 0) {
            return e;
        }
        long t = e.nanos() - origin;
        if (((e.nanos() ^ origin) & (e.nanos() ^ t)) < 0) {
            t = e.nanos() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return new Event(e.seq(), t, e.actor(), e.kind(), e.subject(), e.value());
    }
}
