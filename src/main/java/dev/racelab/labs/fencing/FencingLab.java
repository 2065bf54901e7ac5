package dev.racelab.labs.fencing;

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
 * Fencing tokens: many clients set a book's price at once. Each takes a token, an ever-growing
 * number, before it writes; the final price should be the one written by the client holding the
 * highest token.
 *
 * <p>A token nobody checks fences nothing ({@code blind-write}). Checking the latest token in one
 * query and writing in the next ({@code check-then-write}, the source article's fix) still lets a
 * stale write through when the client pauses between the two. Only a write that checks and writes
 * in one statement ({@code fenced-cas}) makes the outcome predictable.
 *
 * <p>The default run is small enough to follow: four clients, five price updates each, and a
 * preset pause of 0–40 ms after the check ({@link #presetGates}): a client that pauses there
 * while another takes a newer token and writes lands its stale write afterwards, in every run of
 * both broken strategies; fenced-cas rejects each such write.
 */
public final class FencingLab extends ProfiledLab<FencingStrategy> {

    static final Gate BEFORE_TOKEN = new Gate("before-token",
            "before the client asks for a fencing token");
    static final Gate AFTER_TOKEN = new Gate("after-token",
            "after the client got its token, before it checks or writes anything");
    static final Gate AFTER_CHECK = new Gate("after-check",
            "after check-then-write found its token is the latest, before it writes (the other strategies "
                    + "check nothing and pass here too)");
    static final Gate BEFORE_WRITE = new Gate("before-write",
            "just before the UPDATE of the book's price");

    /** A range, so some clients pause longer than others and their writes land out of token order. */
    static final GateRule PAUSE_AFTER_CHECK = GateRule.range(0, 40);

    private final Backends backends;

    public FencingLab(Backends backends) {
        super(FencingStrategy.class, new LabProfile("fencing", "Fencing tokens",
                "Clients race to set a book's price; only the highest token's price may stand.",
                Set.of(Service.POSTGRES), List.of(FencingStrategy.values()),
                List.of(BEFORE_TOKEN, AFTER_TOKEN, AFTER_CHECK, BEFORE_WRITE),
                new LabProfile.Crew("client", 4, 1, 1000), 5));
        this.backends = backends;
    }

    /** A class runs it: its oracle counts a participant's tokens and writes as they tell them. */
    @Override
    public boolean classReady() {
        return true;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(AFTER_CHECK.id(), PAUSE_AFTER_CHECK);
    }

    @Override
    protected Scenario open(FencingStrategy strategy, RunSetup setup) throws Exception {
        return new FencingScenario(backends.postgres(), strategy, setup);
    }

    @Override
    protected LabView view(FencingStrategy strategy, RunHeader header) {
        return new FencingView(header);
    }

    @Override
    public KeyFigure keyFigure() {
        return new KeyFigure("staleWritesApplied", "stale writes applied");
    }
}
