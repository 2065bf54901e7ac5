package dev.racelab.labs.redis.sync;

import java.time.Duration;

/**
 * One client's handle on a counting semaphore kept in Redis (a mutex is one with a single
 * permit). P is split in two, as in the article: {@link #acquireOrEnqueue} runs the script that
 * either takes a permit or puts the client in the wait queue, and {@link #awaitTurn} waits for
 * the wake-up. Between the two a worker is queued but not yet waiting, which is where RaceLab
 * lets a waiter crash, vanish or give up.
 *
 * <p>A handle belongs to its client's thread.
 */
public interface Semaphore {

    /** The construct's name within its run: {@code mutex}, {@code fork-3}. */
    String name();

    /** P, first half: takes a free permit, or joins the wait queue. Returns whether it holds one. */
    boolean acquireOrEnqueue();

    /**
     * P, second half: waits in the queue for at most {@code patience}. Returns whether it holds a
     * permit; if not, it is still queued, and should wait again or {@link #stopWaiting}.
     *
     * @throws WakeUpsBroken if the wake-up can no longer come (the run is stopping)
     */
    boolean awaitTurn(Duration patience) throws InterruptedException;

    /**
     * Gives up waiting. The article's constructs have no way to leave the queue: the client's
     * entry stays and the wake-up meant for it later finds nobody waiting. The hardened ones
     * leave the queue and pass on a permit granted meanwhile.
     */
    void stopWaiting();

    /** V: hands the permit to the oldest waiter, or back to the counter. Returns false if refused. */
    boolean release();

    /** P in one call: takes a permit within {@code patience}, else gives up waiting. */
    default boolean acquire(Duration patience) throws InterruptedException {
        return acquire(patience, () -> { });
    }

    /**
     * {@link #acquire(Duration)}, telling when this client's turn is settled: {@code queued} runs
     * once it holds a permit or has its place in the wait queue (in arrival order from then on).
     */
    default boolean acquire(Duration patience, Runnable queued) throws InterruptedException {
        boolean taken = acquireOrEnqueue();
        queued.run();
        if (taken || awaitTurn(patience)) {
            return true;
        }
        stopWaiting();
        return false;
    }
}
