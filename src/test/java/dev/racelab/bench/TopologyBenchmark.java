package dev.racelab.bench;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.SentinelTopology;
import dev.racelab.backend.StartupListener;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The replication labs' own servers, round by round in the data home RaceLab uses (warm: the
 * binaries unpacked): how long the PostgreSQL primary with its standby takes to be up, streaming;
 * how long the Redis primary, replica and three Sentinels take, every Sentinel knowing the others;
 * and how long after the primary is killed the Sentinels name the replica primary (what a run's
 * server lane shows within one read, 10 ms, of it). The machine's load beside each round.
 *
 * <p>{@code scripts/bench topologies [rounds]}.
 */
public final class TopologyBenchmark {

    private TopologyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        Path home = DataHome.resolve(System.getenv());
        List<Long> pg = new ArrayList<>();
        List<Long> redis = new ArrayList<>();
        List<Long> failover = new ArrayList<>();
        System.out.printf("%-6s %22s %22s %20s %6s%n", "round", "primary+standby ms", "redis+3 sentinels ms",
                "kill→promoted ms", "load");
        for (int round = 1; round <= rounds; round++) {
            try (Backends backends = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
                long start = System.nanoTime();
                backends.standbyPair();
                long pgMs = (System.nanoTime() - start) / 1_000_000;
                start = System.nanoTime();
                SentinelTopology topology = backends.sentinels();
                long redisMs = (System.nanoTime() - start) / 1_000_000;
                int primary = topology.primary();
                long fault = System.nanoTime();
                topology.kill(primary);
                topology.awaitPrimaryOtherThan(primary, Duration.ofSeconds(30), () -> false);
                long failoverMs = (System.nanoTime() - fault) / 1_000_000;
                pg.add(pgMs);
                redis.add(redisMs);
                failover.add(failoverMs);
                System.out.printf("%-6d %22d %22d %20d %6.2f%n", round, pgMs, redisMs, failoverMs,
                        MachineLoad.oneMinute());
            }
        }
        System.out.printf("median %22d %22d %20d%n", median(pg), median(redis), median(failover));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
