package dev.racelab.labs;

import dev.racelab.backend.Backends;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.advisory.AdvisoryLockLab;
import dev.racelab.labs.counter.CounterLab;
import dev.racelab.labs.fencing.FencingLab;
import dev.racelab.labs.isolation.IsolationLab;
import dev.racelab.labs.jobqueue.JobQueueLab;
import dev.racelab.labs.leasefencing.LeaseFencingLab;
import dev.racelab.labs.philosophers.PhilosophersLab;
import dev.racelab.labs.primitives.PrimitivesLab;
import dev.racelab.labs.readerswriters.ReadersWritersLab;
import dev.racelab.labs.redisfailover.RedisFailoverLab;
import dev.racelab.labs.replicaread.ReplicaReadLab;

import java.util.List;
import java.util.Optional;

/** The registry: every lab RaceLab offers, in the order the window lists them. One line per lab. */
public final class Labs {

    private final List<Lab> labs;

    public Labs(Backends backends) {
        this.labs = List.of(
                new CounterLab(backends),
                new FencingLab(backends),
                new LeaseFencingLab(backends),
                new JobQueueLab(backends),
                new AdvisoryLockLab(backends),
                new PrimitivesLab(backends),
                new PhilosophersLab(backends),
                new ReadersWritersLab(backends),
                new ReplicaReadLab(backends),
                new RedisFailoverLab(backends),
                new IsolationLab(backends));
    }

    public List<Lab> all() {
        return labs;
    }

    public Optional<Lab> find(String id) {
        return labs.stream().filter(lab -> lab.id().equals(id)).findFirst();
    }

    /** The ids, comma-separated, for messages. */
    public String ids() {
        return String.join(", ", labs.stream().map(Lab::id).toList());
    }
}
