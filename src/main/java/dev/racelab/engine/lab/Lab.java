package dev.racelab.engine.lab;

import dev.racelab.engine.Experiment;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.DefaultView;
import dev.racelab.engine.view.LabView;

/**
 * A concurrency lab: a shared resource, workers that use it, strategies from broken to fixed,
 * gates to provoke the race, an oracle that names what went wrong, and a view of its runs.
 *
 * <p>What the engine runs is the {@link Experiment} (the profile, one run's worth of server state,
 * scripts and oracle); a lab adds the {@link #view} that shows a run's record, live or opened from
 * a file. The shells (command line, window) know labs only through this interface; adding a lab
 * means one implementation and one line in the registry ({@code docs/adding-a-lab.md}).
 */
public interface Lab extends Experiment {

    /**
     * The lab's panels and picture for the run {@code header} describes, fed from the run's
     * record: live, or opened from a file with no server. Labs without a view of their own get the
     * {@link DefaultView}.
     */
    default LabView view(RunHeader header) {
        return new DefaultView(header);
    }

    /**
     * The text the lab was read from, for a lab written as a file (a lab file, an isolation spec a
     * user opened): its recordings carry it, so they replay with neither the file nor a server.
     * Empty for a lab built into RaceLab.
     */
    default java.util.Optional<String> source() {
        return java.util.Optional.empty();
    }
}
