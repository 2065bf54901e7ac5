package dev.racelab.tasks;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * RaceLab's background work outside a run's own workers (starting servers, reading and writing
 * files, checking an address, sweeping a spec's permutations, a batch, watching a start): one
 * executor, whose threads are daemons named for the job they do while they do it, and no failure
 * lost. What a job throws, an {@code Error} included, goes to the failure handler it was given,
 * which the window uses to say so instead of sitting at "running…"; a job given none has it
 * printed with its name.
 *
 * <p>The threads are made as jobs come and end a minute after their last (a cached pool): jobs
 * here wait on servers and disks, and none may queue behind another.
 */
public final class Background {

    private static final String IDLE = "racelab-background";
    private static final ExecutorService POOL = Executors.newCachedThreadPool(job -> {
        Thread thread = new Thread(job, IDLE);
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler((t, e) -> report(t.getName(), e, System.err));
        return thread;
    });

    private Background() {
    }

    /**
     * Runs {@code job} on a background thread named {@code name}; what it throws, an {@code Error}
     * included, is handed to {@code failed} on that thread; what {@code failed} throws is printed with the name.
     */
    public static void run(String name, Job job, Consumer<Throwable> failed) {
        POOL.execute(() -> named(name, () -> {
            try {
                job.run();
            } catch (Throwable e) {
                try {
                    failed.accept(e);
                } catch (Throwable handling) {
                    // The handler failed too: both are said, under the job's name.
                    handling.addSuppressed(e);
                    report(name, handling, System.err);
                }
            }
        }));
    }

    /** Runs {@code job} on a background thread named {@code name}; what it throws is printed with the name. */
    public static void run(String name, Job job) {
        run(name, job, e -> report(name, e, System.err));
    }

    /**
     * Computes {@code job} on a background thread named {@code name}: its future answers what it
     * returned or throws what it threw (wrapped, as futures do), an {@code Error} included. For a
     * caller that waits for the answer itself.
     */
    public static <T> Future<T> call(String name, Callable<T> job) {
        FutureTask<T> task = new FutureTask<>(job);
        POOL.execute(() -> named(name, task));
        return task;
    }

    /** Runs a task that keeps its own outcome (a JavaFX {@code Task}, a {@link FutureTask}) on a thread named {@code name}. */
    public static void start(String name, FutureTask<?> task) {
        POOL.execute(() -> named(name, task));
    }

    private static void named(String name, Runnable job) {
        Thread thread = Thread.currentThread();
        thread.setName(name);
        try {
            job.run();
        } finally {
            // The thread goes back to the pool as it came: no name, no interrupt left over.
            Thread.interrupted();
            thread.setName(IDLE);
        }
    }

    /**
     * Threads for work that lasts as long as what owns it (a relay's pumps, which live as long as
     * the servers it joins): daemons named {@code prefix-1}, {@code prefix-2}, …, whose failures are
     * printed with their names, as the pool's are.
     */
    public static ThreadFactory threads(String prefix) {
        AtomicInteger made = new AtomicInteger();
        return job -> {
            Thread thread = new Thread(job, prefix + "-" + made.incrementAndGet());
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, e) -> report(t.getName(), e, System.err));
            return thread;
        };
    }

    /** Work for a background thread; it may throw anything, which goes to its failure handler. */
    @FunctionalInterface
    public interface Job {
        void run() throws Exception;
    }

    /** What a failure says, for a window's message: its message, or its kind where it has none (most Errors). */
    public static String said(Throwable e) {
        return e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    }

    static void report(String name, Throwable e, PrintStream to) {
        to.println("racelab: background job " + name + " failed: " + e);
        e.printStackTrace(to);
    }
}
