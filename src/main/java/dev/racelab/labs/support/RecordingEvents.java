package dev.racelab.labs.support;

import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.SyncEvents;

import java.util.concurrent.atomic.LongAdder;

/**
 * Puts what a worker's constructs report on the worker's lane: lock requests, grants and
 * releases (so the timeline shows holders and queues), wake-ups with the release that caused
 * them (so it can draw the arrow), and the constructs' own incidents as notes. Counts the
 * incidents for the run's oracle in a {@link Tally} shared by all workers.
 *
 * <p>Called on the worker's thread only, as {@link SyncEvents} promises.
 */
public class RecordingEvents implements SyncEvents {

    /** The run's counts of the constructs' incidents, summed over workers. */
    public static final class Tally {
        public final LongAdder retried = new LongAdder();
        public final LongAdder reclaimed = new LongAdder();
        public final LongAdder refused = new LongAdder();
        public final LongAdder unread = new LongAdder();
    }

    protected final WorkerContext context;
    protected final Tally tally;

    public RecordingEvents(WorkerContext context, Tally tally) {
        this.context = context;
        this.tally = tally;
    }

    @Override
    public void requested(String construct) {
        context.mark(EventKind.LOCK_REQUESTED, construct, 0);
    }

    @Override
    public void acquired(String construct, boolean waited, long cause) {
        if (waited) {
            context.mark(EventKind.WOKEN, construct, cause);
        }
        context.mark(EventKind.LOCK_ACQUIRED, construct, 0);
    }

    @Override
    public long released(String construct) {
        return seq(context.mark(EventKind.LOCK_RELEASED, construct, 0));
    }

    @Override
    public long signalling(String condition) {
        return seq(context.mark(EventKind.NOTE, "signals " + condition, 0));
    }

    @Override
    public void signalled(String condition, long cause) {
        context.mark(EventKind.WOKEN, condition, cause);
    }

    @Override
    public void stoppedWaiting(String construct) {
        context.mark(EventKind.NOTE, "stopped waiting for " + construct, 0);
    }

    @Override
    public void retried(String construct) {
        tally.retried.increment();
        context.mark(EventKind.RETRY, construct + ": the wake-up reached nobody, so the release ran again", 0);
    }

    @Override
    public void reclaimed(String construct, long count) {
        tally.reclaimed.add(count);
        context.mark(EventKind.NOTE, construct + ": took back " + count + (count == 1 ? " lease" : " leases")
                + " that had run out", count);
    }

    @Override
    public void refused(String construct) {
        tally.refused.increment();
        context.mark(EventKind.NOTE, construct + ": release refused, this worker holds no permit", 0);
    }

    @Override
    public void unread(String construct, int count) {
        tally.unread.add(count);
        context.mark(EventKind.NOTE, construct + ": " + count + (count == 1 ? " wake-up" : " wake-ups")
                + " arrived while nobody waited", count);
    }

    private static long seq(Event event) {
        return event == null ? NO_CAUSE : event.seq();
    }
}
