package dev.racelab.engine;

import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one place threads are made: daemons, named, each with an uncaught-exception handler that
 * hands the failure to the owner's {@link RunThreads.FailureSink}.
 */
final class Threads implements RunThreads {

    private static final long JOIN_MILLIS = 5_000;

    private final FailureSink sink;
    private final Thread.UncaughtExceptionHandler handler;

    Threads(FailureSink sink) {
        this.sink = sink;
        this.handler = (thread, failure) -> sink.failed(thread.getName(), failure);
    }

    @Override
    public Thread start(String name, Runnable body) {
        Thread thread = make(name, body);
        thread.start();
        return thread;
    }

    /** A thread not yet started, for owners that start several at once. */
    Thread make(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler(handler);
        return thread;
    }

    @Override
    public ThreadFactory factory(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return body -> make(prefix + "-" + count.incrementAndGet(), body);
    }

    @Override
    public Periodic every(String name, Duration period, Runnable task) {
        long nanos = period.toNanos();
        if (nanos <= 0) {
            throw new IllegalArgumentException("a period must be positive: " + period);
        }
        PeriodicTask periodic = new PeriodicTask(name, nanos, task);
        periodic.thread = make(name, periodic::loop);
        periodic.thread.start();
        return periodic;
    }

    private final class PeriodicTask implements Periodic {

        private final String name;
        private final long periodNanos;
        private final Runnable task;
        private volatile boolean open = true;
        /** Set before the thread starts, so whoever closes the task sees it. */
        private Thread thread;

        PeriodicTask(String name, long periodNanos, Runnable task) {
            this.name = name;
            this.periodNanos = periodNanos;
            this.task = task;
        }

        private void loop() {
            long next = System.nanoTime() + periodNanos;
            while (open) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                next = Math.max(next + periodNanos, System.nanoTime());
                if (!open) {
                    return;
                }
                try {
                    task.run();
                } catch (Throwable failure) {
                    if (open) {
                        sink.failed(name, failure);
                    }
                }
            }
        }

        @Override
        public void close() {
            open = false;
            if (thread == null || thread == Thread.currentThread()) {
                return;
            }
            thread.interrupt();
            try {
                thread.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
