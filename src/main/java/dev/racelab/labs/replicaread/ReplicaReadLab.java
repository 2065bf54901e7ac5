package dev.racelab.labs.replicaread;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.KeyFigure;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.Switch;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.ProfiledLab;

import java.util.List;
import java.util.Set;

/**
 * Reading your own write on a standby: each client commits a new version of its own row on the
 * primary and reads it straight back from a hot standby, RaceLab's own pair of servers whose
 * replication stream passes through a relay RaceLab holds at will.
 *
 * <p>A standby replays the primary's WAL a moment later; a read in that moment sees the row as it
 * was ({@code read-standby}). A synchronous standby ({@code sync-standby}) makes the commit wait
 * until the standby has the WAL on disk, not until it has replayed it, so the moment shrinks but
 * stays. What closes it: a commit that waits for the replay ({@code remote-apply}), a reader that
 * waits until the standby has replayed its writer's commit position ({@code wait-for-lsn}), or
 * reading one's own writes on the primary ({@code read-primary}).
 *
 * <p>Faults hold the replication stream in the relay, or pause the standby's replay, for {@link
 * #STALL_MS} from a client's commit: a stale read every time for the strategies that read the
 * standby at once, and a commit that waits that long for those that wait for the standby. The
 * default run pauses the replay at client-1's commits ({@link #presetGates}).
 */
public final class ReplicaReadLab extends ProfiledLab<ReplicaReadStrategy> {

    static final Gate BEFORE_COMMIT = new Gate("before-commit",
            "before the client writes and commits a new version of its row on the primary");
    static final Gate AFTER_COMMIT = new Gate("after-commit",
            "after the commit returned, before the client reads its row back: a delay gives the standby time "
                    + "to replay");
    static final Gate STREAM_STALLS = Gate.fault("stream-stalls",
            "the replication stream stalls as this client commits: the relay holds the WAL for stall-ms");
    static final Gate REPLAY_PAUSES = Gate.fault("replay-pauses",
            "the standby pauses its WAL replay as this client commits, for stall-ms: the WAL arrives and waits");

    static final Gate STANDBY_PROMOTED = Gate.fault("standby-promoted",
            "the standby is promoted (pg_promote) as this client commits: it stops following the primary, a second "
                    + "primary, and every later read on it is stale; the next run makes the pair anew");

    static final Switch<Integer> STALL_MS = Switch.integer("stall-ms", "Stall",
            "how long a stalled stream or a paused replay lasts", "ms", 100, 10, 10_000);

    private final Backends backends;

    public ReplicaReadLab(Backends backends) {
        super(ReplicaReadStrategy.class, new LabProfile("replica-read", "Reading from a standby",
                "Clients commit on the primary and read their own write back from a hot standby.",
                Set.of(Service.PG_STANDBY), List.of(ReplicaReadStrategy.values()),
                List.of(BEFORE_COMMIT, AFTER_COMMIT, STREAM_STALLS, REPLAY_PAUSES, STANDBY_PROMOTED),
                new LabProfile.Crew("client", 2, 1, 16), 10, List.of(STALL_MS)));
        this.backends = backends;
    }

    /**
     * The standby pauses its replay at each of client-1's commits, for {@link #STALL_MS}: the WAL
     * arrives (received, not replayed, on the server lanes), so a read at once is stale, and so is
     * one after a commit that waited only for the standby's flush ({@code sync-standby}); a commit
     * that waits for the replay ({@code remote-apply}) waits out the pause.
     */
    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(REPLAY_PAUSES.id(), 0, GateRule.fixed(1));
    }

    @Override
    protected Scenario open(ReplicaReadStrategy strategy, RunSetup setup) throws Exception {
        return new ReplicaReadScenario(backends.standbyPair(), strategy, setup);
    }

    @Override
    protected LabView view(ReplicaReadStrategy strategy, RunHeader header) {
        return new ReplicaReadView(header);
    }

    /** Faults on replication are RaceLab's to inflict only on its own pair ({@link Stalls#NOT_OURS}). */
    @Override
    public java.util.Optional<String> refuses(RunSpec spec) {
        if (backends.settings().standby().isEmpty()) {
            return java.util.Optional.empty();
        }
        for (Gate fault : List.of(STREAM_STALLS, REPLAY_PAUSES, STANDBY_PROMOTED)) {
            for (int worker = 0; worker < spec.workers(); worker++) {
                if (!spec.gates().rule(fault.id(), worker).isPass()) {
                    return java.util.Optional.of(Stalls.NOT_OURS);
                }
            }
        }
        return java.util.Optional.empty();
    }

    @Override
    public java.util.Optional<String> unexplorable() {
        return java.util.Optional.of("its race is with replication, which the servers run on their own time: a schedule orders the clients, not the WAL's way to the standby");
    }

    @Override
    public KeyFigure keyFigure() {
        return new KeyFigure("staleReads", "stale reads");
    }
}
