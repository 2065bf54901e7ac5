package dev.racelab.classroom;

import dev.racelab.engine.Experiment;
import dev.racelab.engine.Gate;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.lab.Lab;

import java.util.List;
import java.util.Optional;

/**
 * A participant's share of a class's run: the lab as it is, but run on the host's rows and keys
 * (its run id, {@link RunSetup#joined}), which the host made and removes.
 */
final class JoinedExperiment implements Experiment {

    private final Lab lab;
    private final String classRun;

    JoinedExperiment(Lab lab, String classRun) {
        this.lab = lab;
        this.classRun = classRun;
    }

    @Override
    public LabProfile profile() {
        return lab.profile();
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return lab.open(setup.joining(classRun));
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
