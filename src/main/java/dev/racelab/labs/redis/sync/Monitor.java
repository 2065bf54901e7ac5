package dev.racelab.labs.redis.sync;

import java.time.Duration;

/**
 * A monitor made of a mutex and condition variables, as the article makes one: the mutex guards
 * the monitor's state (itself kept in Redis keys), and a client that cannot go on waits on a
 * condition, giving up the mutex while it waits.
 *
 * <p>Signals are Mesa-style: between the signal and the woken client taking the mutex again,
 * anyone may enter and change the state. So a woken client must check again what it waited for:
 * {@link #waitWhile} loops. {@link #waitIf} is the classic mistake, kept so RaceLab can show what
 * it costs: it checks once, and after the wake-up goes on whether or not the state still allows.
 *
 * <p>A monitor belongs to its client's thread.
 */
public final class Monitor {

    /** A check of the monitor's state, made while holding its mutex. */
    @FunctionalInterface
    public interface Check {
        boolean holds() throws Exception;
    }

    /** Something done between being woken and taking the mutex again (a gate, in RaceLab). */
    @FunctionalInterface
    public interface Step {
        void run() throws Exception;

        Step NOTHING = () -> { };
    }

    private final Semaphore mutex;
    private final Duration patience;
    private final Duration signalWait;
    /** Whether this client is inside the monitor: it holds the mutex and is not waiting on a condition. */
    private boolean inside;

    /**
     * @param mutex      this client's handle on the monitor's mutex
     * @param patience   how long entering may take before it is an error
     * @param signalWait how long a waiter waits for a signal before it checks again on its own
     *                   (the article waits for as long as it takes; a hardened monitor re-checks
     *                   so a lost signal costs one wait, not the waiter)
     */
    public Monitor(Semaphore mutex, Duration patience, Duration signalWait) {
        this.mutex = mutex;
        this.patience = patience;
        this.signalWait = signalWait;
    }

    public Semaphore mutex() {
        return mutex;
    }

    public void enter() throws InterruptedException {
        enter(() -> { });
    }

    /** Enters; {@code queued} runs as soon as the mutex is taken or this client has its place in its queue. */
    private void enter(Runnable queued) throws InterruptedException {
        if (!mutex.acquire(patience, queued)) {
            throw new IllegalStateException("could not enter the monitor " + mutex.name() + " within "
                    + patience.toSeconds() + " s");
        }
        inside = true;
    }

    public void exit() {
        inside = false;
        mutex.release();
    }

    /**
     * Runs {@code body} inside the monitor and leaves it afterwards, also when {@code body} fails,
     * unless it failed while waiting on a condition (when the mutex is not held).
     */
    public void inside(Step body) throws Exception {
        inside(() -> { }, body);
    }

    /**
     * {@link #inside}, telling when this client's turn is settled: {@code queued} runs once it
     * holds the mutex or has its place in the mutex's queue (in arrival order from then on).
     */
    public void inside(Runnable queued, Step body) throws Exception {
        enter(queued);
        try {
            body.run();
        } finally {
            if (inside) {
                exit();
            }
        }
    }

    /** Waits on {@code condition} for as long as {@code blocked} holds; returns inside the monitor. */
    public void waitWhile(Condition condition, Check blocked, Step afterWake) throws Exception {
        while (blocked.holds()) {
            waitOnce(condition, afterWake);
        }
    }

    /**
     * Checks {@code blocked} once and waits once if it holds; returns inside the monitor without
     * checking again. Wrong under Mesa signals: kept to show why.
     */
    public void waitIf(Condition condition, Check blocked, Step afterWake) throws Exception {
        if (blocked.holds()) {
            waitOnce(condition, afterWake);
        }
    }

    private void waitOnce(Condition condition, Step afterWake) throws Exception {
        inside = false;
        condition.await(mutex, signalWait);
        afterWake.run();
        enter();
    }
}
