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
    private final int first;
    private final int classWorkers;

    /** Run {@code classRun} of a class, whose workers this one's are from {@code first} on, of {@code classWorkers}. */
    JoinedExperiment(Lab lab, String classRun, int first, int classWorkers) {
        super(lab);
        this.classRun = classRun;
        this.first = first;
        this.classWorkers = classWorkers;
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return lab.open(setup.joining(classRun, first, classWorkers));
    }
}
