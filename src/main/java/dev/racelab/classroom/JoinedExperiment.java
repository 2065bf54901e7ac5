package dev.racelab.classroom;

import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.lab.Lab;


/**
 * A participant's share of a class's run: the lab as it is, but run on the host's rows and keys
 * (its run id, {@link RunSetup#joined}), which the host made and removes.
 */
final class JoinedExperiment extends ClassExperiment {

    private final String classRun;

    JoinedExperiment(Lab lab, String classRun) {
        super(lab);
        this.classRun = classRun;
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return lab.open(setup.joining(classRun));
    }
}
