package dev.racelab.labs.support;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.view.DefaultView;
import dev.racelab.engine.view.LabView;

/**
 * A lab whose strategies are the constants of its own enum {@code S}: the engine hands back the
 * constant the run uses, so the lab's scenario and view choose behaviour by switching over {@code
 * S}, which the compiler checks, and never by comparing ids.
 *
 * @param <S> the lab's strategies
 */
public abstract class ProfiledLab<S extends Enum<S> & Strategy> implements Lab {

    private final LabProfile profile;
    private final Class<S> strategyType;

    protected ProfiledLab(Class<S> strategyType, LabProfile profile) {
        this.strategyType = strategyType;
        this.profile = profile;
        for (Strategy s : profile.strategies()) {
            if (!strategyType.isInstance(s)) {
                throw new IllegalArgumentException(profile.id() + ": strategy " + s.id() + " is not a "
                        + strategyType.getSimpleName());
            }
        }
    }

    @Override
    public final LabProfile profile() {
        return profile;
    }

    @Override
    public final Scenario open(RunSetup setup) throws Exception {
        return open(strategyType.cast(setup.strategy()), setup);
    }

    /** Opens a run of {@code strategy}. */
    protected abstract Scenario open(S strategy, RunSetup setup) throws Exception;

    @Override
    public final LabView view(RunHeader header) {
        return view(strategyOf(header), header);
    }

    /** The panels and picture of a run of {@code strategy}; the default view unless the lab has its own. */
    protected LabView view(S strategy, RunHeader header) {
        return new DefaultView(header);
    }

    /** The strategy a run's header names. */
    protected final S strategyOf(RunHeader header) {
        return profile.strategy(header.spec().strategy()).map(strategyType::cast).orElseThrow(() ->
                new IllegalArgumentException(profile.id() + " has no strategy '" + header.spec().strategy() + "'"));
    }
}
