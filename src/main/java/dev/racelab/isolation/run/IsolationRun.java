package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Spec;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * One spec, run whole on a server: a scratch database made for it, its permutations run by
 * isolationtester's rules, the database dropped, whatever happened. Nothing of the spec is left
 * on the server afterwards: no database, no session.
 *
 * <p>{@link #run} runs on the caller's thread; {@link #stop} may come from any other and ends the
 * run at once (its connections are closed, so whatever it waits for fails), after which the
 * running thread still drops the database before it returns.
 */
public final class IsolationRun {

    private final Postgres server;
    private final Spec spec;
    private final IsolationListener listener;
    private final SpecRunner.Options options;
    private volatile SpecRunner runner;
    private volatile boolean stopped;
    private volatile List<String> notes = List.of();
    private volatile List<String> kept = List.of();
    private volatile String scratchName;
    private volatile Consumer<String> rolesLock = sentence -> { };

    public IsolationRun(Postgres server, Spec spec, IsolationListener listener, SpecRunner.Options options) {
        this.server = server;
        this.spec = spec;
        this.listener = listener;
        this.options = options;
    }

    /**
     * Runs {@code spec}'s permutations in a fresh scratch database.
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
     *                          or a role it creates that exists on the server already
     */
    public void run(List<Permutation> only) throws BackendException, IsolationFailure {
        ServerReach reach = ServerReach.of(spec);
        Optional<String> refused = refusal(spec, reach);
        if (refused.isPresent()) {
            throw new IsolationFailure(refused.get());
        }
        try (SpecRoles roles = SpecRoles.claim(server, spec.name(), reach.createdRoles(), () -> stopped,
                rolesLock)) {
            ScratchDatabase scratch = ScratchDatabase.create(server);
            scratchName = scratch.name();
            notes = scratch.notes();
            try {
                runIn(scratch, only, roles.witnessing());
                scratch.drop();
            } finally {
                // Whatever happened: the database first (the roles' objects in it go with it), then the roles.
                try {
                    scratch.close();
                } finally {
                    kept = roles.dropCreated();
                }
            }
        }
    }

    private void runIn(ScratchDatabase scratch, List<Permutation> only, IsolationListener witness)
            throws IsolationFailure {
        try (SpecRunner connected = SpecRunner.connect(scratch.address(), scratch.name(), spec,
                IsolationListener.all(listener, witness), options)) {
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

    private static Optional<String> refusal(Spec spec, ServerReach reach) {
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
     * The roles the spec created that could not be dropped, as sentences naming each: they stay
     * on the server. Empty when it created none or all were dropped; set when {@link #run} returns.
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

    /**
     * Tells {@code said} as soon as the run waits for another RaceLab's role-creating spec (or
     * takes its lock outside database {@code postgres}), on the run's thread; call before {@link #run}.
     */
    public void onRolesLock(Consumer<String> said) {
        rolesLock = said;
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
