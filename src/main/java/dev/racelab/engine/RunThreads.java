package dev.racelab.engine;

import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/**
 * Where a run's threads come from: every thread the engine or a lab starts for a run is made
 * here, named after what it does, as a daemon, and with a handler that records its failure in the
 * run, so nothing dies silently and a broken thread ends its run with {@link Verdict#ERROR}.
 */
public interface RunThreads {

    /** Starts a thread called {@code name} running {@code body}. */
    Thread start(String name, Runnable body);

    /** A factory for an executor or a pool's threads, named {@code prefix-1}, {@code prefix-2}, … */
    ThreadFactory factory(String prefix);

    /**
     * Runs {@code task} every {@code period} on a thread of its own called {@code name}, until the
     * returned handle is closed. A task that throws is recorded as a failure of the run, and runs
     * again at its next time: one bad turn never cancels the later ones.
     */
    Periodic every(String name, Duration period, Runnable task);

    /** A task running periodically; closing it stops it and waits for its thread to end. */
    interface Periodic extends AutoCloseable {
        @Override
        void close();
    }

    /** Where a thread's failure goes. */
    @FunctionalInterface
    interface FailureSink {
        void failed(String thread, Throwable failure);
    }

    /**
     * Threads outside any run (tests, benchmarks, tools): failures go to {@code sink}.
     */
    static RunThreads unsupervised(FailureSink sink) {
        return new Threads(sink);
    }
}
