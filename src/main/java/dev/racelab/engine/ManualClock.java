package dev.racelab.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A clock that only moves when a test tells it to.
 *
 * <p>A thread that sleeps on it stays blocked until {@link #advance} carries the time past its
 * wake-up. {@link #sleepers} counts only threads still waiting for their time, not those whose
 * time has come but which have not yet woken, so a test can advance, await the next sleeper and
 * advance again without racing the wake-ups. Tests use {@link #awaitSleepers} to learn that the workers have reached their delays,
 * then advance the clock: no real time passes and no test sleeps.
 */
public final class ManualClock implements Clock {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Wake-up times of the threads sleeping now. Guarded by {@code lock}. */
    private final List<Long> wakeTimes = new ArrayList<>();
    private long now;

    public ManualClock() {
        this(0);
    }

    public ManualClock(long startNanos) {
        this.now = startNanos;
    }

    @Override
    public long nanos() {
        lock.lock();
        try {
            return now;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (nanos <= 0) {
            return;
        }
        lock.lock();
        try {
            Long wakeAt = now + nanos;
            wakeTimes.add(wakeAt);
            changed.signalAll();
            try {
                while (now < wakeAt) {
                    changed.await();
                }
            } finally {
                wakeTimes.remove(wakeAt);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Moves time forward and wakes every sleeper whose time has come. */
    public void advance(Duration by) {
        lock.lock();
        try {
            now += by.toNanos();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The number of threads sleeping on this clock whose wake-up time has not come yet. */
    public int sleepers() {
        lock.lock();
        try {
            return pending();
        } finally {
            lock.unlock();
        }
    }

    private int pending() {
        int count = 0;
        for (long wakeAt : wakeTimes) {
            if (wakeAt > now) {
                count++;
            }
        }
        return count;
    }

    /**
     * Waits (in real time, bounded by {@code timeout}) until at least {@code count} threads sleep
     * on this clock.
     */
    public void awaitSleepers(int count, Duration timeout) throws InterruptedException, TimeoutException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (pending() < count) {
                if (left <= 0) {
                    throw new TimeoutException(pending() + " of " + count + " threads asleep after " + timeout);
                }
                left = changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }
}
