package dev.racelab.engine.explore;

import dev.racelab.engine.Chooser;
import dev.racelab.engine.Steering;

import java.util.List;

/** Where an exploration goes next: one chooser per schedule, told afterwards what the schedule did. */
interface Search {

    /** The chooser for the next schedule, or null when the space is exhausted. */
    Chooser next();

    /** The passages the schedule just run made. */
    void ran(List<Steering.Step> steps);

    /** Schedules whose run went otherwise than the same choices went before (the servers or threads varied). */
    default int diverged() {
        return 0;
    }

    /** The preemptions in {@code steps}: passages that made a worker wait that could have gone on ({@link Chooser.Point#preempts}). */
    static int preemptions(List<Steering.Step> steps) {
        int count = 0;
        int previous = -1;
        for (int i = 0; i < steps.size(); i++) {
            Steering.Step step = steps.get(i);
            if (new Chooser.Point(i, step.enabled(), previous).preempts(step.worker())) {
                count++;
            }
            previous = step.worker();
        }
        return count;
    }
}
