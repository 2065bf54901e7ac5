package dev.racelab.engine;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A manual clock that can hold one chosen thread inside {@link #nanos()}: the test learns the
 * thread got there, does what it wants meanwhile, and lets it go. It opens, deterministically, the
 * window between a check and an act that reads the clock.
 */
final class GatedClock implements Clock {

    private final ManualClock time = new ManualClock();
    private volatile Thread held;
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** The next call of {@link #nanos()} by {@code thread} waits until {@link #release()}. */
    void hold(Thread thread) {
        held = thread;
    }

    /** Waits until the held thread is inside {@link #nanos()}. */
    boolean awaitArrival(long seconds) throws InterruptedException {
        return arrived.await(seconds, TimeUnit.SECONDS);
    }

    void release() {
        release.countDown();
    }

    ManualClock time() {
        return time;
    }

    @Override
    public long nanos() {
        if (Thread.currentThread() == held) {
            held = null;
            arrived.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return time.nanos();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        time.sleep(nanos);
    }
}
