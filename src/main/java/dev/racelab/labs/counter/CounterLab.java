package dev.racelab.labs.counter;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.view.LabView;
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
 *
 * <p>The default run is small enough to follow by eye: four clients, five increments each, and
 * a preset pause of 10–40 ms between the read and the write ({@link #presetGates}), so the
 * clients' reads and writes interleave and read-modify-write loses increments in every run,
 * while each fix still counts all twenty.
 */
public final class CounterLab extends ProfiledLab<CounterStrategy> {

    static final Gate BEFORE_READ = new Gate("before-read",
            "before the worker reads the counter: nothing of this increment has happened yet");
    static final Gate AFTER_READ = new Gate("after-read",
            "after reading the counter, before writing it back (atomic-update has no separate read: "
                    + "the delay falls just before its single UPDATE)");

    /** Long enough that another client reads or writes in between; a range, so the clients drift apart. */
    static final GateRule PAUSE_AFTER_READ = GateRule.range(10, 40);

    private final Backends backends;

    public CounterLab(Backends backends) {
        super(CounterStrategy.class, new LabProfile("counter", "Lost increments",
                "Workers add one to a shared counter; read-then-write loses increments.",
                Set.of(Service.POSTGRES), List.of(CounterStrategy.values()),
                List.of(BEFORE_READ, AFTER_READ),
                new LabProfile.Crew("client", 4, 1, 1000), 5));
        this.backends = backends;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(AFTER_READ.id(), PAUSE_AFTER_READ);
    }

    @Override
    protected Scenario open(CounterStrategy strategy, RunSetup setup) throws Exception {
        return new CounterScenario(backends.postgres(), strategy, setup);
    }

    @Override
    protected LabView view(CounterStrategy strategy, RunHeader header) {
        return new CounterView(strategy, header);
    }
}
