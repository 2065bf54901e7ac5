package dev.racelab.classroom;

import dev.racelab.engine.Experiment;
import dev.racelab.engine.Gate;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.lab.Lab;

import java.util.List;
import java.util.Optional;

/**
 * A lab as one side of a class runs it: the lab itself in all but how a run opens (the host's,
 * {@link HostedExperiment}; a participant's, {@link JoinedExperiment}) and what the lanes are called.
 */
abstract class ClassExperiment implements Experiment {

    final Lab lab;

    ClassExperiment(Lab lab) {
        this.lab = lab;
    }

    @Override
    public LabProfile profile() {
        return lab.profile();
    }

    @Override
    public String id() {
        return lab.id();
    }

    @Override
    public Optional<Strategy> strategy(String id) {
        return lab.strategy(id);
    }

    @Override
    public List<Gate> gates() {
        return lab.gates();
    }

    @Override
    public String workerName(int index) {
        return lab.workerName(index);
    }

    @Override
    public int minWorkers() {
        return lab.minWorkers();
    }

    @Override
    public int maxWorkers() {
        return lab.maxWorkers();
    }
}
