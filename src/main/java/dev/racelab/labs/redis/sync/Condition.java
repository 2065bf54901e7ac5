package dev.racelab.labs.redis.sync;

import java.time.Duration;

/**
 * One client's handle on a condition variable kept in Redis: a wait queue of clients and a
 * signal that wakes the oldest. Signals follow Mesa semantics, as in the article: the signaller
 * keeps the monitor, and the woken client must take the monitor's mutex again and re-check what
 * it waited for, because someone else may have got in first. {@link Monitor} does the re-taking
 * and the re-checking.
 */
public interface Condition {

    String name();

    /**
     * Joins the queue while holding {@code mutex}, releases it, and waits for a signal for at most
     * {@code patience}. Returns without the mutex: whether a signal came.
     */
    boolean await(Semaphore mutex, Duration patience) throws InterruptedException;

    /** Wakes the oldest waiter, if any. The caller holds the monitor's mutex. */
    void signal();

    /** Wakes every waiter. The caller holds the monitor's mutex. */
    void signalAll();
}
