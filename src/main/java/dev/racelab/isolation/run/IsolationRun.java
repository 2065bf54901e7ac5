package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Spec;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One spec, run whole on a server: a sandbox made for it ({@link SpecSandbox}: a scratch database,
 * the role its sessions log in as, the spec's own roles), its permutations run by isolationtester's
 * rules, the sandbox dropped, whatever happened. Nothing of the spec is left on the server
 * afterwards: no database, no role, no session.
 *
 * <p>{@link #run} runs on the caller's thread; {@link #stop} may come from any other and ends the
 * run at once (its connections are closed, so whatever it waits for fails), after which the
 * running thread still drops the sandbox before it returns.
 */
public final class IsolationRun {

    private final Postgres server;
    private final Spec spec;
    private final IsolationListener listener;
    private final SpecRunner.Options options;
    private final SpecSandbox.Access access;
    private volatile SpecRunner runner;
    private volatile boolean stopped;
    private volatile List<String> notes = List.of();
    private volatile List<String> kept = List.of();
    private volatile String scratchName;

    /** A run confined to a sandbox of its own ({@link SpecSandbox.Access#CONFINED}). */
    public IsolationRun(Postgres server, Spec spec, IsolationListener listener, SpecRunner.Options options) {
        this(server, spec, listener, options, SpecSandbox.Access.CONFINED);
    }

    public IsolationRun(Postgres server, Spec spec, IsolationListener listener, SpecRunner.Options options,
                        SpecSandbox.Access access) {
        this.server = server;
        this.spec = spec;
        this.listener = listener;
        this.options = options;
        this.access = access;
    }

    /**
     * Runs {@code spec}'s permutations in a fresh sandbox.
     *
     * @throws BackendException if the server cannot be used (no right to create databases, it
     *                          fails) or the scratch database cannot be dropped
     * @throws IsolationFailure if the spec could not run to its end (the listener has what ran)
     */
    public static void run(Postgres server, Spec spec, List<Permutation> only, IsolationListener listener,
                           SpecRunner.Options options) throws BackendException, IsolationFailure {
        new IsolationRun(server, spec, listener, options).run(only);
    }

    /**
     * Runs the spec's permutations, or only {@code only} when it is not empty.
     *
     * @throws IsolationFailure also when the spec is refused before anything runs: a statement
     *                          RaceLab cannot confine to the scratch database ({@link ServerReach}),
     *                          or a right its role would need that RaceLab does not give
     */
    public void run(List<Permutation> only) throws BackendException, IsolationFailure {
        ServerReach reach = ServerReach.of(spec);
        Optional<String> refused = refusal(spec, reach);
        if (refused.isPresent()) {
            throw new IsolationFailure(refused.get());
        }
        SpecSandbox sandbox = SpecSandbox.open(server, spec, reach, access);
        scratchName = sandbox.database();
        notes = sandbox.notes();
        try {
            inSandbox(sandbox, only);
            sandbox.dropDatabase();
        } finally {
            // Whatever happened: the database first (the roles' objects in it go with it), then the roles.
            kept = sandbox.release();
        }
    }

    /**
     * Runs the spec's permutations (or only {@code only}) in {@code sandbox}, which the caller
     * made ({@link SpecSandbox#open}, for this spec or one it {@linkplain SpecSandbox#mayHost
     * may host}) and drops: a sandbox used for one spec after another.
     *
     * @throws IsolationFailure as {@link #run(List)}
     */
    public void runIn(SpecSandbox sandbox, List<Permutation> only) throws IsolationFailure {
        Optional<String> refused = refusal(spec);
        if (refused.isPresent()) {
            throw new IsolationFailure(refused.get());
        }
        scratchName = sandbox.database();
        notes = sandbox.notes();
        inSandbox(sandbox, only);
    }

    private void inSandbox(SpecSandbox sandbox, List<Permutation> only) throws IsolationFailure {
        try (SpecRunner connected = SpecRunner.connect(sandbox, spec, listener, options)) {
            runner = connected;
            if (stopped) {
                throw new IsolationFailure("stopped");
            }
            if (only.isEmpty()) {
                connected.runAll();
            } else {
                for (Permutation p : only) {
                    connected.run(p);
                }
            }
            if (stopped) {
                throw new IsolationFailure("stopped");
            }
        } catch (IsolationFailure e) {
            throw stopped ? new IsolationFailure("stopped", e) : e;
        } finally {
            runner = null;
        }
    }

    /**
     * Why RaceLab will not run {@code spec}, naming each statement it cannot confine to a scratch
     * database and where it is; empty when it may run (a role it creates may still exist: that is
     * known only on the server).
     */
    public static Optional<String> refusal(Spec spec) {
        return refusal(spec, ServerReach.of(spec));
    }

    /** {@link #refusal(Spec)}, from the spec's reading already made. */
    public static Optional<String> refusal(Spec spec, ServerReach reach) {
        if (reach.refusals().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("refused, nothing ran: spec " + spec.name() + " reaches beyond the scratch database it "
                + "would run in: " + reach.refusals().stream().map(ServerReach.Refusal::message)
                .collect(Collectors.joining("; ")));
    }

    /** The scratch database this run made (dropped by the time {@link #run} returns), or null before. */
    public String scratchName() {
        return scratchName;
    }

    /**
     * What the run made and could not drop (a role, its scratch database), as sentences naming
     * each: it stays on the server. Empty when all was dropped; set when {@link #run} returns.
     */
    public List<String> kept() {
        return kept;
    }

    /**
     * How the scratch database differs from PostgreSQL's own test environment, in sentences (a
     * login that is no superuser cannot set {@code lc_messages}); empty before {@link #run} made it.
     */
    public List<String> notes() {
        return notes;
    }

    /** Ends the run from another thread: its connections close, and it drops its database and returns. */
    public void stop() {
        stopped = true;
        SpecRunner current = runner;
        if (current != null) {
            current.close();
        }
    }
}
