package dev.racelab.labs.philosophers;

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
import dev.racelab.engine.Switch;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.ProfiledLab;
import dev.racelab.labs.support.RedisFixture;

import java.util.List;
import java.util.Set;

/**
 * The dining philosophers: N philosophers round a table, a fork between each pair, and a
 * philosopher needs both neighbouring forks to eat. Each fork is a Redis semaphore with one
 * permit (the hardened construct, so Redis itself records who holds each fork and who waits).
 *
 * <p>Philosopher {@code k} has fork {@code k} on the left and fork {@code k+1} on the right (the
 * last philosopher's right fork is fork 1). Philosophers think for 1–20 ms and eat for 1–5 ms
 * (drawn from the run's seed; the switches {@code think-ms} and {@code eat-ms} set the longest) on
 * top of any delay set at those gates. Taking the left fork first
 * is fine until all of them do it at once: then each holds one fork and waits for its
 * neighbour's, for ever. A delay at {@code between-forks} longer than the thinking makes that
 * happen every time, so the lab ships one ({@link #presetGates}): with every default, naive
 * deadlocks at the first meal, and the fixes eat their three meals each in a second or two.
 * The preset backoff is a range: no backoff (or the same few ms for everyone) keeps try-backoff's
 * philosophers in step, a livelock or starvation the oracle names at the run's timeout.
 */
public final class PhilosophersLab extends ProfiledLab<PhilosophersStrategy> {

    static final Gate THINKING = Gate.stretching("thinking",
            "thinking, holding no fork, before getting hungry");
    static final Gate BETWEEN_FORKS = new Gate("between-forks",
            "holding the first fork, before reaching for the second");
    static final Gate EATING = Gate.stretching("eating",
            "eating, holding both forks");
    static final Gate BACKOFF = new Gate("backoff",
            "try-backoff only: the second fork was taken, the first is back on the table; before trying again "
                    + "(a range breaks the step; none, or the same few ms for everyone, keeps them in step: a livelock)");

    /** Longer than any philosopher thinks before its first meal, so all hold their left fork at once. */
    static final GateRule DAWDLE_BETWEEN_FORKS = GateRule.fixed(100);
    /** Drawn anew each time, so philosophers who back off together try again apart. */
    static final GateRule RANDOM_BACKOFF = GateRule.range(0, 200);

    static final Switch<Integer> THINK_MS = Switch.integer("think-ms", "Thinking up to",
            "the longest a philosopher thinks between meals (each time 1 ms to this, drawn from the seed)", "ms",
            20, 1, 5_000);
    static final Switch<Integer> EAT_MS = Switch.integer("eat-ms", "Eating up to",
            "the longest a meal lasts (each time 1 ms to this, drawn from the seed)", "ms", 5, 1, 5_000);

    private final Backends backends;

    public PhilosophersLab(Backends backends) {
        super(PhilosophersStrategy.class, new LabProfile("dining-philosophers", "Dining philosophers",
                "Philosophers share forks kept in Redis; all grabbing the left fork first deadlocks the table.",
                Set.of(Service.REDIS), List.of(PhilosophersStrategy.values()),
                List.of(THINKING, BETWEEN_FORKS, EATING, BACKOFF),
                new LabProfile.Crew("philosopher", 5, 2, RedisFixture.MOST_WORKERS), 3, List.of(THINK_MS, EAT_MS)));
        this.backends = backends;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(BETWEEN_FORKS.id(), DAWDLE_BETWEEN_FORKS).with(BACKOFF.id(), RANDOM_BACKOFF);
    }

    @Override
    protected Scenario open(PhilosophersStrategy strategy, RunSetup setup) throws Exception {
        return new PhilosophersScenario(backends.redis(), strategy, setup);
    }

    @Override
    protected LabView view(PhilosophersStrategy strategy, RunHeader header) {
        return new TableView(header);
    }

    @Override
    public KeyFigure keyFigure() {
        return new KeyFigure("longestHungerMs", "longest hunger, ms");
    }
}
