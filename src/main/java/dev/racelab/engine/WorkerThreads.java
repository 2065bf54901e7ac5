package dev.racelab.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * The threads of a run's workers: made (each runs its worker's operations, from a start line they
 * all reach first), started, waited for, and, when the run stops, interrupted,
 * aborted (a worker blocked on a server has its connection cut) and joined against one deadline
 * for all of them, so a thousand stuck workers cost {@link Run#TEARDOWN_MILLIS}, not hours.
 */
final class WorkerThreads {

    private final List<WorkerHandle> workers;
    private final Recorder recorder;
    private final GateKeeper gates;
    private final int ops;
    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch done;
    /** Counts the workers to the start line, where they wait for each other. */
    private final CountDownLatch atTheStart;
    /** Whether the workers were released, interrupted, aborted and waited for once; the supervisor's only. */
    private boolean tornDown;

    WorkerThreads(List<WorkerHandle> workers, Recorder recorder, GateKeeper gates, int ops) {
        this.workers = workers;
        this.recorder = recorder;
        this.gates = gates;
        this.ops = ops;
        this.done = new CountDownLatch(workers.size());
        this.atTheStart = new CountDownLatch(workers.size());
    }

    /**
     * Makes a thread per worker, running its operations until they are done or the run is
     * {@code stopping}; a worker that fails is handed to {@code failed} with what it threw.
     */
    void make(Threads runThreads, BooleanSupplier stopping, BiConsumer<String, Throwable> failed) {
        for (WorkerHandle worker : workers) {
            threads.add(runThreads.make(worker.name(), () -> work(worker, stopping, failed)));
        }
    }

    private void work(WorkerHandle worker, BooleanSupplier stopping, BiConsumer<String, Throwable> failed) {
        try {
            startLine();
            worker.state(ActorState.RUNNING);
            for (int op = 0; op < ops && !stopping.getAsBoolean(); op++) {
                worker.script.operation(op);
                worker.mark(EventKind.OP_END, null, op);
                worker.opDone();
            }
            if (!stopping.getAsBoolean()) {
                worker.state(ActorState.DONE);
            }
        } catch (LabWorker.Left e) {
            worker.mark(EventKind.NOTE, e.getMessage(), 0);
            worker.state(ActorState.FAILED, "left");
        } catch (GateKeeper.RunStopped | InterruptedException e) {
            // Stopped: the lane keeps showing what the worker was doing when the run ended.
        } catch (Throwable e) {
            // Errors too (an AssertionError in a lab, a StackOverflowError): the worker is gone
            // and the run must say so, not judge what is left as if nothing had happened.
            if (!stopping.getAsBoolean()) {
                failed.accept(worker.name(), e);
                worker.mark(EventKind.ERROR, RunResults.message(e), 0);
                worker.state(ActorState.FAILED);
            }
        } finally {
            try {
                worker.script.close();
            } catch (Exception e) {
                worker.mark(EventKind.NOTE, "closing failed: " + RunResults.message(e), 0);
            } finally {
                // Finished once closed: what its close lets go (a rollback's locks) is let go by then.
                gates.finished(worker.index());
                finished();
            }
        }
    }

    void startAll() {
        threads.forEach(Thread::start);
    }

    /**
     * A worker's thread waits here until every worker's has got here, so that all begin their
     * first operation together, as a plain program's threads (pgbench's clients) do: started one
     * after another, the first would otherwise run alone for a moment, and show less of the race.
     *
     * @throws InterruptedException if the run stops first
     */
    private void startLine() throws InterruptedException {
        atTheStart.countDown();
        atTheStart.await();
    }

    /** Whether every worker finished within {@code millis}. */
    boolean await(long millis) throws InterruptedException {
        return done.await(millis, TimeUnit.MILLISECONDS);
    }

    /** A worker's thread ends. */
    void finished() {
        done.countDown();
    }

    /** How many workers have not finished. */
    long running() {
        return done.getCount();
    }

    /**
     * Ends every worker thread still alive, once: {@code announce} first (the run records that it
     * stops), then interrupt, abort what is still blocked after {@link Run#ABORT_AFTER_MILLIS}, join.
     */
    void stop(Runnable announce) {
        if (done.getCount() == 0 || threads.isEmpty() || tornDown) {
            return;
        }
        tornDown = true;
        announce.run();
        threads.forEach(Thread::interrupt);
        try {
            if (!done.await(Run.ABORT_AFTER_MILLIS, TimeUnit.MILLISECONDS)) {
                workers.forEach(this::abort);
            }
            // One deadline for all of them: a thousand stuck workers cost five seconds, not hours.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Run.TEARDOWN_MILLIS);
            for (Thread thread : threads) {
                TimeUnit.NANOSECONDS.timedJoin(thread, Math.max(0, deadline - System.nanoTime()));
                if (thread.isAlive()) {
                    recorder.record(Run.RUN_ACTOR, EventKind.ERROR, thread.getName() + " did not stop", 0);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void abort(WorkerHandle worker) {
        try {
            if (worker.script != null) {
                worker.script.abort();
            }
        } catch (RuntimeException e) {
            recorder.record(worker.actor(), EventKind.NOTE, "aborting failed: " + RunResults.message(e), 0);
        }
    }

    /** Closes the scripts of workers whose threads never started (a started thread closes its own). */
    void closeUnstarted() {
        if (!threads.isEmpty()) {
            return;
        }
        for (WorkerHandle worker : workers) {
            if (worker.script != null) {
                try {
                    worker.script.close();
                } catch (Exception e) {
                    recorder.record(Run.RUN_ACTOR, EventKind.NOTE, "closing " + worker.name() + ": "
                            + RunResults.message(e), 0);
                }
            }
        }
    }
}
