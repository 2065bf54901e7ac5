package dev.racelab.engine;

import java.time.Duration;

/**
 * The supervisor's watch over a run's workers while they run, asked after every poll: whether they
 * got anywhere. Progress is what the workers record (their activity) or a worker held at a gate on
 * purpose; a quiet second makes it ask the lab whether the workers are deadlocked, once per quiet
 * stretch; the timeout without progress ends the run. A lab whose workers can be busy and get
 * nowhere says since when its longest-waiting worker has waited: a wait longer than the timeout,
 * not counting time a worker was halted at a gate, ends the run too.
 *
 * <p>Every stretch counts from when the workers started, never from when the supervisor first got
 * to run: on a busy machine that can be seconds later. Used by the supervisor's thread only.
 */
final class StallWatch {

    /** What the supervisor does next. */
    enum Next {
        /** Nothing: the workers are getting somewhere, or the watch waits longer. */
        GO_ON,
        /** Ask the lab whether the workers are deadlocked: a cycle of waits does not break by itself. */
        ASK_DEADLOCK,
        /** The timeout passed without progress, or a worker waited longer than it. */
        TIMED_OUT
    }

    /** How long a run is quiet before its lab is asked whether the workers are deadlocked. */
    static final long DEADLOCK_CHECK_NANOS = 1_000_000_000L;

    private final long timeoutNanos;
    private long seen = -1;
    private long lastProgress;
    private long lastHalt;
    private boolean askedForDeadlock;

    StallWatch(long startNanos, Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
        this.lastProgress = startNanos;
        this.lastHalt = startNanos;
    }

    /**
     * After a poll at {@code now}.
     *
     * @param activity      everything the workers have recorded so far
     * @param anyHalted     whether a worker is halted at a gate now
     * @param holdingAnyone whether the gates hold a worker now (halted, or sitting out a delay)
     * @param waitingSince  since when the lab's longest-waiting worker has waited, or {@link Long#MAX_VALUE}
     */
    Next after(long now, long activity, boolean anyHalted, boolean holdingAnyone, long waitingSince) {
        if (anyHalted) {
            lastHalt = now;
        }
        if (waitingSince != Long.MAX_VALUE && now - Math.max(waitingSince, lastHalt) > timeoutNanos) {
            // Busy, but by the lab's measure a worker got nowhere for the timeout: a livelock or starvation.
            return Next.TIMED_OUT;
        }
        if (activity != seen || holdingAnyone) {
            seen = activity;
            lastProgress = now;
            askedForDeadlock = false;
            return Next.GO_ON;
        }
        if (now - lastProgress > timeoutNanos) {
            return Next.TIMED_OUT;
        }
        if (!askedForDeadlock && now - lastProgress > DEADLOCK_CHECK_NANOS) {
            askedForDeadlock = true;
            return Next.ASK_DEADLOCK;
        }
        return Next.GO_ON;
    }
}
