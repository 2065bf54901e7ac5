package dev.racelab.labs.counter;

import dev.racelab.backend.Backends;
import dev.racelab.engine.KeyFigure;
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
 * preset pauses ({@link #presetGates}): 0–100 ms before each read spreads the clients apart, and
 * 10–30 ms between the read and the write lets another client write in between. Read-modify-write
 * loses a few increments in every run, each one an arrow on the timeline from the overwriting
 * write back to the write it never saw, while each fix still counts all twenty.
 */
public final class CounterLab extends ProfiledLab<CounterStrategy> {

    static final Gate BEFORE_READ = new Gate("before-read",
            "before the client reads the counter: nothing of this increment has happened yet");
    static final Gate AFTER_READ = new Gate("after-read",
            "after reading the counter, before writing it back (atomic-update has no separate read: "
                    + "the delay falls just before its single UPDATE)");

    /** Spreads the clients' increments apart, so the lost ones stand out one by one. */
    static final GateRule PAUSE_BEFORE_READ = GateRule.range(0, 100);
    /** Long enough that another client often writes in between. */
    static final GateRule PAUSE_AFTER_READ = GateRule.range(10, 30);

    private final Backends backends;

    public CounterLab(Backends backends) {
        super(CounterStrategy.class, new LabProfile("counter", "Lost increments",
                "Clients add one to a shared counter; reading, then writing back loses increments.",
                Set.of(Service.POSTGRES), List.of(CounterStrategy.values()),
                List.of(BEFORE_READ, AFTER_READ),
                new LabProfile.Crew("client", 4, 1, 1000), 5));
        this.backends = backends;
    }

    @Override
    public boolean classReady() {
        return true;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(BEFORE_READ.id(), PAUSE_BEFORE_READ).with(AFTER_READ.id(), PAUSE_AFTER_READ);
    }

    @Override
    protected Scenario open(CounterStrategy strategy, RunSetup setup) throws Exception {
        return new CounterScenario(backends.postgres(), strategy, setup);
    }

    @Override
    protected LabView view(CounterStrategy strategy, RunHeader header) {
        return new CounterView(strategy, header);
    }

    @Override
    public KeyFigure keyFigure() {
        return new KeyFigure("lostIncrements", "increments lost");
    }
}
