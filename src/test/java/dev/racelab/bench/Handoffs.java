package dev.racelab.bench;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Lock hand-off latency, as the hand-off benchmarks measure it: from the moment the holder calls
 * release to the moment the waiter that gets the lock next is running again.
 *
 * <p>Two threads pass the lock back and forth. The holder keeps it for a while ({@code hold}),
 * long enough for the other thread to be waiting for it (so every sample is a real wake-up, not a
 * free lock taken), notes the time, and releases. The other thread notes the time the moment its
 * acquire returns. The old holder asks again only once the new one holds the lock, so an unfair
 * lock cannot be barged and no lock gets a sample it did not earn.
 */
final class Handoffs {

    private Handoffs() {
    }

    /** One side of a lock: acquire blocks until held. */
    interface Lock {
        void acquire() throws Exception;

        void release() throws Exception;
    }

    /**
     * Passes the lock between two threads {@code warmUp + handoffs} times; returns the last {@code
     * handoffs} hand-off times in ns. Side 0 holds the even turns (from turn 0, taken freely), side
     * 1 the odd ones; a side asks for turn t only once the other holds turn t-1.
     */
    static long[] measure(int warmUp, int handoffs, long holdNanos, Lock first, Lock second) throws Exception {
        int total = warmUp + handoffs;
        long[] samples = new long[total];
        AtomicInteger held = new AtomicInteger(-1);
        AtomicLong releasedAt = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Lock[] locks = {first, second};
        Thread[] threads = new Thread[2];
        for (int side = 0; side < 2; side++) {
            int me = side;
            threads[side] = new Thread(() -> {
                try {
                    for (int turn = me; turn <= total; turn += 2) {
                        awaitTurnHeld(held, turn - 1);
                        locks[me].acquire();
                        if (turn > 0) {
                            samples[turn - 1] = System.nanoTime() - releasedAt.get();
                        }
                        announce(held, turn);
                        if (turn < total) {
                            LockSupport.parkNanos(holdNanos);
                        }
                        releasedAt.set(System.nanoTime());
                        locks[me].release();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    announce(held, Integer.MAX_VALUE);
                }
            }, "bench-" + (me + 1));
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the benchmark failed", failure.get());
        }
        return Arrays.copyOfRange(samples, warmUp, total);
    }

    /**
     * Blocks until the other side holds turn {@code turn} (or a later one). Blocking, not spinning:
     * on a small machine a spinning thread would steal the core the wake-up needs.
     */
    private static void awaitTurnHeld(AtomicInteger held, int turn) throws InterruptedException {
        synchronized (held) {
            while (held.get() < turn) {
                held.wait();
            }
        }
    }

    private static void announce(AtomicInteger held, int turn) {
        synchronized (held) {
            held.set(turn);
            held.notifyAll();
        }
    }

    /** One line: what was measured, then p50, p90, p99 and the longest hand-off, in ms. */
    static void report(String what, long[] samples) {
        System.out.printf("%-51s p50 %.3f ms · p90 %.3f ms · p99 %.3f ms · max %.3f ms%n", what,
                ms(percentile(samples, 50)), ms(percentile(samples, 90)), ms(percentile(samples, 99)),
                ms(percentile(samples, 100)));
    }

    static long percentile(long[] samples, double p) {
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }
}
