package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.Spec;

import java.util.List;

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

    /** Runs the spec's permutations, or only {@code only} when it is not empty. */
    public void run(List<Permutation> only) throws BackendException, IsolationFailure {
        ScratchDatabase scratch = ScratchDatabase.create(server);
        notes = scratch.notes();
        try {
            try (SpecRunner connected = SpecRunner.connect(scratch.address(), scratch.name(), spec, listener, options)) {
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
            scratch.drop();
        } finally {
            scratch.close();
            List<String> kept = scratch.dropRolesLeftBy(spec.allSql());
            if (!kept.isEmpty()) {
                List<String> all = new java.util.ArrayList<>(notes);
                all.addAll(kept);
                notes = List.copyOf(all);
            }
        }
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
