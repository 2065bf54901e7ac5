package dev.racelab.labs.counter;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.LabProfile;
import dev.racelab.labs.support.ProfiledLab;

import java.util.List;
import java.util.Set;

/**
 * Lost increments: workers add one to a shared counter row in PostgreSQL.
 *
 * <p>Reading the value and writing back value + 1 in two statements lets two workers read the
 * same value; the second write then overwrites the first, and an increment is lost. The fixes
 * make the read and the write one step ({@code UPDATE … SET value = value + 1}), lock the row
 * between them ({@code SELECT … FOR UPDATE}), or let PostgreSQL detect the conflict and retry
 * ({@code SERIALIZABLE}).
 */
public final class CounterLab extends ProfiledLab {

    static final Gate BEFORE_READ = new Gate("before-read",
            "before the worker reads the counter: nothing of this increment has happened yet");
    static final Gate AFTER_READ = new Gate("after-read",
            "after reading the counter, before writing it back (atomic-update has no separate read: "
                    + "the delay falls just before its single UPDATE)");

    static final Strategy READ_MODIFY_WRITE = new Strategy("read-modify-write", "Read, then write",
            "SELECT the value, then UPDATE it to value + 1: two workers can read the same value", true);
    static final Strategy ATOMIC_UPDATE = new Strategy("atomic-update", "Atomic UPDATE",
            "UPDATE … SET value = value + 1: PostgreSQL reads and writes under the row lock", false);
    static final Strategy SELECT_FOR_UPDATE = new Strategy("select-for-update", "SELECT … FOR UPDATE",
            "lock the row when reading it, so nobody else reads it until this transaction commits", false);
    static final Strategy SERIALIZABLE_RETRY = new Strategy("serializable-retry", "Serializable + retry",
            "read and write in a SERIALIZABLE transaction; PostgreSQL aborts the loser, which retries", false);

    public CounterLab(Backends backends) {
        super(backends, new LabProfile("counter", "Lost increments",
                "Workers add one to a shared counter; read-then-write loses increments.",
                Set.of(Service.POSTGRES),
                List.of(READ_MODIFY_WRITE, ATOMIC_UPDATE, SELECT_FOR_UPDATE, SERIALIZABLE_RETRY),
                List.of(BEFORE_READ, AFTER_READ),
                new LabProfile.Crew("client", 8, 1, 1000), 50));
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return new CounterScenario(backends.postgres(), setup);
    }

    @Override
    public LabView view(Run run) {
        return new CounterView(run);
    }
}
