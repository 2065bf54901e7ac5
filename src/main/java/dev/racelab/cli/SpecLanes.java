package dev.racelab.cli;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.run.IsolationFailure;
import dev.racelab.isolation.run.IsolationListener;
import dev.racelab.isolation.run.IsolationRun;
import dev.racelab.isolation.run.PermutationReport;
import dev.racelab.isolation.run.SandboxSupply;
import dev.racelab.isolation.run.SpecRunner;
import dev.racelab.isolation.run.SpecSandbox;
import dev.racelab.isolation.run.Transcript;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Specs run in lanes, one after another in each (one per core unless the user says otherwise), each
 * lane in a sandbox of its own (a scratch database, a role), and handed back in the order given.
 * isolationtester runs one spec after another in one database; a lane does the same while the
 * spec before left nothing there ({@link SpecSandbox#mayHost}), else it takes a new sandbox, whose
 * database and login a {@link SandboxSupply} made ahead, and hands the old one to it to drop behind.
 * Lanes side by side have their own databases, roles and sessions, and PostgreSQL's row and
 * table locks do not cross databases; but they share the server's limits (connections, prepared
 * transactions) and its serializable transactions (a DEFERRABLE snapshot waits for every one), so
 * the user may ask for one lane ({@code --jobs 1}).
 *
 * <p>With one lane the transcript of the spec running is printed as it comes, as before; with
 * more, each is printed whole once it and every spec before it have ended. A stop ({@link #stop})
 * ends the specs running and starts no other; a server failure starts no other either. {@link
 * #close} waits for every lane, so no sandbox outlives the command.
 */
final class SpecLanes implements AutoCloseable {

    /** How one spec ended: its transcript, its report, why it stopped (null if it ran to its end). */
    record Ended(Spec spec, String transcript, PermutationReport report, String failure, boolean serverFailed,
                 IsolationRun run, List<String> kept) {
    }

    private final ExecutorService lanes;
    private final List<Future<Ended>> results = new ArrayList<>();
    private final Set<IsolationRun> running = ConcurrentHashMap.newKeySet();
    /** Each lane's sandbox, kept for the lane's next spec while it may host it. */
    private final ThreadLocal<SpecSandbox> laneSandbox = new ThreadLocal<>();
    /** Every sandbox made and not yet dropped: the last of each lane is dropped at the end. */
    private final Set<SpecSandbox> made = ConcurrentHashMap.newKeySet();
    /** The most sessions a spec given has: each lane's login may have that many. */
    private final int sessions;
    /** Where what stays on the server after the lanes' last sandboxes were dropped is said. */
    private final Consumer<String> warn;
    /** Confined sandboxes made ahead and dropped behind; null when the specs run as the login. */
    private final SandboxSupply supply;
    private volatile boolean halted;
    private volatile boolean leftBehind;

    /**
     * Starts {@code specs} in {@code laneCount} lanes, in order.
     *
     * @param live where the transcript of the spec running goes as it comes, with one lane (null: nowhere)
     */
    SpecLanes(int laneCount, List<Spec> specs, Map<Spec, List<Permutation>> chosen, Postgres server,
              SpecSandbox.Access access, Consumer<String> live, Consumer<String> warn) {
        // Twice the most sessions a spec has: a reused login's next spec may connect while the
        // last one's sessions are still closing on the server.
        this.sessions = 2 * specs.stream().mapToInt(spec -> spec.sessions().size()).max().orElse(1);
        this.warn = warn;
        this.supply = access == SpecSandbox.Access.CONFINED
                ? new SandboxSupply(server, sessions, laneCount, specs.size(), warn) : null;
        AtomicInteger threads = new AtomicInteger();
        this.lanes = Executors.newFixedThreadPool(laneCount, task -> {
            Thread thread = new Thread(task, "isolation-lane-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        Consumer<String> printing = laneCount == 1 ? live : null;
        for (Spec spec : specs) {
            results.add(lanes.submit(() -> halted ? null : run(spec, chosen.get(spec), server, access, printing)));
        }
    }


    private Ended run(Spec spec, List<Permutation> only, Postgres server, SpecSandbox.Access access,
                      Consumer<String> live) {
        Transcript transcript = new Transcript(live == null ? piece -> { } : live::accept);
        PermutationReport report = new PermutationReport();
        IsolationRun run = new IsolationRun(server, spec, IsolationListener.all(transcript, report),
                SpecRunner.Options.DEFAULTS, access);
        running.add(run);
        List<String> kept = new ArrayList<>();
        String failure = null;
        boolean serverFailed = false;
        try {
            if (halted) {
                run.stop();
            }
            if (access == SpecSandbox.Access.CONFINED) {
                inLaneSandbox(run, spec, only, server, kept);
            } else {
                // As the user's login, a spec may change what it finds: each has a sandbox of its own.
                run.run(only);
            }
        } catch (IsolationFailure e) {
            failure = e.getMessage();
        } catch (BackendException e) {
            // Reported like any failure, so that the roles the spec left (kept) are still said.
            failure = e.getMessage();
            serverFailed = true;
            // The server failed RaceLab (a scratch database could not be made or dropped): the specs
            // after this one would meet the same server.
            halted = true;
        } finally {
            running.remove(run);
        }
        kept.addAll(run.kept());
        return new Ended(spec, transcript.text(), report, failure, serverFailed, run, kept);
    }

    /**
     * Runs {@code spec} in its lane's sandbox, as isolationtester runs specs one after another in
     * one database, when the spec before left nothing there and this one needs nothing more
     * ({@link SpecSandbox#mayHost}); else in a new one. A sandbox after a spec that failed or was
     * stopped is not used again. What dropping a sandbox leaves on the server goes to {@code kept}.
     */
    private void inLaneSandbox(IsolationRun run, Spec spec, List<Permutation> only, Postgres server,
                               List<String> kept) throws BackendException, IsolationFailure {
        supply.specStarted();
        ServerReach reach = ServerReach.of(spec);
        Optional<String> refused = IsolationRun.refusal(spec, reach);
        if (refused.isPresent()) {
            throw new IsolationFailure(refused.get());
        }
        SpecSandbox sandbox = laneSandbox.get();
        if (sandbox != null && !sandbox.mayHost(spec, reach)) {
            laneSandbox.remove();
            made.remove(sandbox);
            supply.dropLater(sandbox);
            sandbox = null;
        }
        if (supply.leftBehind()) {
            // Dropping a sandbox behind left something on the server (said as it happened).
            leftBehind = true;
            halted = true;
        }
        if (halted) {
            // Stopped, or the server failed: no new database or role now.
            throw new IsolationFailure("stopped");
        }
        if (sandbox == null) {
            sandbox = SpecSandbox.open(server, spec, reach, SpecSandbox.Access.CONFINED, sessions, supply);
            made.add(sandbox);
            laneSandbox.set(sandbox);
        }
        boolean ended = false;
        try {
            run.runIn(sandbox, only);
            ended = !halted;
        } finally {
            if (!ended) {
                kept.addAll(drop(sandbox));
            }
        }
    }

    /**
     * Drops {@code sandbox} (its database, its roles), which its lane will not use again. What
     * stays on the server is a server failure: no other spec starts.
     */
    private List<String> drop(SpecSandbox sandbox) {
        laneSandbox.remove();
        made.remove(sandbox);
        List<String> kept = sandbox.release();
        if (!kept.isEmpty()) {
            leftBehind = true;
            halted = true;
        }
        return kept;
    }

    /** Whether dropping a sandbox left something on the server (said as it happened). */
    boolean leftBehind() {
        return leftBehind;
    }

    /**
     * The next spec in the order given, once it has ended; null for one that never started (after a
     * stop or a server failure).
     */
    Ended next(int index) throws InterruptedException {
        try {
            return results.get(index).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a spec's lane failed", e.getCause());
        }
    }

    /** Ends the specs running (their sandboxes are still dropped) and starts no other. From any thread. */
    void stop() {
        halted = true;
        running.forEach(IsolationRun::stop);
    }

    /**
     * Stops what still runs (nothing, once every spec was taken with {@link #next}) and waits for
     * every lane: the specs end and drop their sandboxes before the command returns. A stopped
     * spec closes its connections at once, so the wait is its sandbox's dropping.
     */
    @Override
    public void close() throws InterruptedException {
        stop();
        lanes.shutdown();
        boolean interrupted = false;
        try {
            lanes.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        try {
            finish();
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            throw new InterruptedException();
        }
    }

    /**
     * Drops each lane's last sandbox, kept for a spec that did not come, and what the supply made
     * ahead, side by side, saying what stays on the server; once every spec was taken with {@link
     * #next}. Answers whether something stayed.
     */
    boolean finish() throws InterruptedException {
        if (supply == null) {
            return leftBehind;
        }
        for (SpecSandbox sandbox : List.copyOf(made)) {
            made.remove(sandbox);
            supply.dropLater(sandbox);
        }
        supply.close();
        return leftBehind || supply.leftBehind();
    }
}
