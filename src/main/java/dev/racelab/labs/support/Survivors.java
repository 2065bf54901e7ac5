package dev.racelab.labs.support;

import dev.racelab.engine.WorkerContext;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a worker that dropped out of a run (it crashed, froze or gave up for good) on its lane
 * until everyone else is done, so the timeline shows it out of the game for the rest of the run
 * and its connections, where the fault leaves them open, stay open as long as they matter.
 *
 * <p>Every worker reports {@link #done} exactly once: when it finishes its operations or when it
 * drops out. A dropped-out worker's thread then {@linkplain #outlast waits} for the others; the
 * run stopping interrupts it.
 */
public final class Survivors {

    private static final long SLICE_MILLIS = 20;

    private final CountDownLatch remaining;

    public Survivors(int workers) {
        this.remaining = new CountDownLatch(workers);
    }

    /** One worker is done or out. */
    public void done() {
        remaining.countDown();
    }

    /**
     * Waits until every other worker is done, running {@code meanwhile} every few milliseconds on
     * the waiting thread (to notice what still reaches the dropped-out worker). The worker,
     * {@code context}, passes no more gates: a schedule counts it as finished from here.
     */
    public void outlast(WorkerContext context, Runnable meanwhile) throws InterruptedException {
        context.doneActing();
        while (!remaining.await(SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
            meanwhile.run();
        }
        meanwhile.run();
    }
}
