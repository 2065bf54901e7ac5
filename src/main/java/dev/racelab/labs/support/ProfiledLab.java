package dev.racelab.labs.support;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;

import java.util.List;
import java.util.Set;

/** A lab whose description is a {@link LabProfile}: it writes only how to run and how to show itself. */
public abstract class ProfiledLab implements Lab {

    protected final Backends backends;
    private final LabProfile profile;

    protected ProfiledLab(Backends backends, LabProfile profile) {
        this.backends = backends;
        this.profile = profile;
    }

    @Override
    public final String id() {
        return profile.id();
    }

    @Override
    public final String title() {
        return profile.title();
    }

    @Override
    public final String story() {
        return profile.story();
    }

    @Override
    public final Set<Service> services() {
        return profile.services();
    }

    @Override
    public final List<Strategy> strategies() {
        return profile.strategies();
    }

    @Override
    public final List<Gate> gates() {
        return profile.gates();
    }

    @Override
    public final String workerRole() {
        return profile.crew().role();
    }

    @Override
    public final int defaultWorkers() {
        return profile.crew().usually();
    }

    @Override
    public final int minWorkers() {
        return profile.crew().fewest();
    }

    @Override
    public final int maxWorkers() {
        return profile.crew().most();
    }

    @Override
    public final int defaultOps() {
        return profile.defaultOps();
    }
}
