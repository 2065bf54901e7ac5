package dev.racelab.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Polls a run's server observers on one thread while the run is live, at a fixed rate: a read
 * starts every {@link #PERIOD_MICROS} µs, or at once when the last one took longer. Before each
 * observer reads, a {@code SERVER_SAMPLE} on its lanes marks the time of the read, so what it
 * reports is drawn from the sample that saw it (not from when the answer came back) to the sample
 * that no longer did. The observers connect when the run is prepared; the first read comes as the
 * run starts, before the workers do, so the lanes show the servers from the run's first moment.
 * An observer's session that the server ends is one of the run's own: it ends the run, named, as a
 * worker's does.
 */
final class RunObservers implements ServerObserver.LaneSink, AutoCloseable {

    /** 10 ms: a row lock held across a gate's few milliseconds is seen; see docs/server-lanes.md for the cost. */
    static final long PERIOD_MICROS = 10_000;
    /** How long the supervisor waits for the first read before starting the workers anyway. */
    private static final long FIRST_READ_MILLIS = 2_000;

    /** What the observers ask of their run. */
    interface Host {
        /** Gives the next lane, a server's, to {@code name}; its actor id. */
        int addLane(String name);

        boolean stopping();

        /** Ends the run as a worker's failure does, naming {@code who}. */
        void failed(String who, Throwable cause);

        /** The lane of the worker called {@code name}, or -1. */
        int workerActor(String name);
    }

    private final List<ServerObserver> observers;
    private final Recorder recorder;
    private final ServerWatch servers;
    private final RunThreads threads;
    private final String labId;
    private final Host run;
    private final List<int[]> laneActors = new ArrayList<>();
    private final CountDownLatch firstRead = new CountDownLatch(1);
    private Thread thread;
    private volatile boolean open = true;
    private boolean aborted;
    /** Which observers' latest read lost its server: the final read skips them (a silent server would only hold the run's end). */
    private final boolean[] failed;
    private int[] current;

    RunObservers(List<ServerObserver> observers, Recorder recorder, ServerWatch servers, RunThreads threads,
                 String labId, Host run) {
        this.observers = observers;
        this.failed = new boolean[observers.size()];
        this.recorder = recorder;
        this.servers = servers;
        this.threads = threads;
        this.labId = labId;
        this.run = run;
        for (ServerObserver observer : observers) {
            int[] ids = new int[observer.lanes().size()];
            for (int lane = 0; lane < ids.length; lane++) {
                ids[lane] = run.addLane(observer.lanes().get(lane));
            }
            laneActors.add(ids);
            try {
                observer.connect();
            } catch (Exception e) {
                if (servers.lost(e).isPresent()) {
                    // The server failed the observer's own session, as it would a worker's: the
                    // run ends now, named, rather than start its workers beside a silent server;
                    // the observers that did connect are closed first (nothing else knows them).
                    closeAll(observers.subList(0, laneActors.size()));
                    throw new IllegalStateException("an observer could not connect", e);
                }
                recorder.record(ids[0], EventKind.NOTE, "observer failed: " + RunResults.message(e), 0);
            }
        }
    }

    /** Starts reading, and waits (bounded) until every observer has read its server once. */
    void begin() throws InterruptedException {
        if (observers.isEmpty()) {
            return;
        }
        thread = threads.start("observer-" + labId, this::poll);
        firstRead.await(FIRST_READ_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void poll() {
        long period = PERIOD_MICROS * 1_000;
        long next = System.nanoTime();
        while (open) {
            pollAll();
            firstRead.countDown();
            next += period;
            long wait = next - System.nanoTime();
            if (wait <= 0) {
                // Late (a slow read, a busy machine): read again at once, and count from now.
                next = System.nanoTime();
                continue;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Reads every server once; a server that fails is noted on its lane (which is not progress). */
    private void pollAll() {
        for (int i = 0; i < observers.size() && open; i++) {
            pollOne(i);
        }
    }

    private void pollOne(int i) {
        current = laneActors.get(i);
        for (int lane : current) {
            recorder.record(lane, EventKind.SERVER_SAMPLE, null, PERIOD_MICROS);
        }
        try {
            observers.get(i).poll(this);
            failed[i] = false;
        } catch (Exception e) {
            // Lost or silent (a timeout, a broken connection): read no more at the end. A one-off
            // error (a statement refused under load) leaves the final read to be tried.
            boolean lost = servers.lost(e).isPresent();
            failed[i] = lost;
            if (open && lost && !run.stopping()) {
                // The server ended the observer's own session: a session of the run's, as a
                // worker's is, and the run ends as when a worker's ends, naming the server.
                run.failed("the observer of " + observers.get(i).lanes().get(0), e);
            } else if (open) {
                recorder.record(current[0], EventKind.NOTE, "observer failed: " + RunResults.message(e), 0);
            }
        }
    }

    @Override
    public Event record(int lane, EventKind kind, String subject, long value) {
        return recorder.record(current[lane], kind, subject, value);
    }

    @Override
    public int workerActor(String name) {
        return run.workerActor(name);
    }

    private void abortAll() {
        for (ServerObserver observer : observers) {
            try {
                observer.abort();
            } catch (Exception e) {
                recorder.record(Run.RUN_ACTOR, EventKind.NOTE, "cutting observer: " + RunResults.message(e), 0);
            }
        }
    }

    /** Stops polling, reads the servers one last time (the run's final state), and closes. */
    @Override
    public void close() {
        open = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(Run.ABORT_AFTER_MILLIS);
                if (thread.isAlive()) {
                    // A read blocked on a server that stopped answering: cut it rather than wait
                    // out its bound, and read no more (a cut connection may open again unasked).
                    aborted = true;
                    abortAll();
                    thread.join(Run.TEARDOWN_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // Read once more after the workers ended, unless reading never began (the run did not
        // start) or a read had to be cut; and not from a server whose latest read failed: one that
        // stopped answering would hold the run's end for the read's whole bound, twice over.
        if (thread != null && !thread.isAlive() && !aborted) {
            open = true;
            for (int i = 0; i < observers.size(); i++) {
                if (!failed[i]) {
                    pollOne(i);
                }
            }
            open = false;
        }
        closeAll(observers);
    }

    private void closeAll(List<ServerObserver> which) {
        for (ServerObserver observer : which) {
            try {
                observer.close();
            } catch (Exception e) {
                recorder.record(Run.RUN_ACTOR, EventKind.NOTE, "closing observer: " + RunResults.message(e), 0);
            }
        }
    }
}
