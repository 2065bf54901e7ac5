package dev.racelab.labs.explore;

import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.explore.Explorer;
import dev.racelab.engine.explore.Found;
import dev.racelab.engine.explore.Method;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;

@Tag("lab")
class ProbeTimingTest {
    @Test
    void probe() throws Exception {
        Lab lab = new Labs(TestServers.backends()).find(System.getenv().getOrDefault("LAB", "counter")).orElseThrow();
        TestServers.backends().postgres().keepSessions(true);
        Explorer ex = new Explorer(lab, lab.defaults().withStrategy(System.getenv().getOrDefault("STRATEGY", lab.defaults().strategy())).withWorkers(Integer.parseInt(System.getenv().getOrDefault("WORKERS", "3"))).withOps(1), Clock.system(), r -> { });
        long[] sums = new long[4];
        int[] n = new int[1];
        long[] last = {System.nanoTime()};
        var result = ex.explore(new Explorer.Settings(Method.ALL, 0, 3, 1, 200, Duration.ofSeconds(60), Duration.ofSeconds(5)),
                new Explorer.Listener() {
                    public void ran(Found f, RunRecord r) {
                        long prep = -1, start = -1, lastStep = -1, end = -1;
                        for (Event e : r.events().upToNow()) {
                            if (e.kind() == EventKind.RUN_PREPARING && prep < 0) prep = e.nanos();
                            if (e.kind() == EventKind.RUN_STARTED) start = e.nanos();
                            if (e.kind() == EventKind.OP_END) lastStep = e.nanos();
                            if (e.kind() == EventKind.RUN_ENDED) end = e.nanos();
                        }
                        if (n[0] == Integer.parseInt(System.getenv().getOrDefault("AT", "30")) && System.getenv("DUMP") != null) {
                            long t0 = -1;
                            for (Event e : r.events().upToNow()) {
                                if (t0 < 0) t0 = e.nanos();
                                System.out.printf("%8.3f %d %s %s %d%n", (e.nanos() - t0) / 1e6, e.actor(), e.kind(), e.subject(), e.value());
                            }
                        }
                        long now = System.nanoTime();
                        if (n[0]++ >= 2) {
                            sums[0] += start - prep; sums[1] += lastStep - start; sums[2] += end - lastStep; sums[3] += now - last[0];
                        }
                        last[0] = now;
                    }
                });
        int k = n[0] - 2;
        System.out.printf("n=%d open %.2f ms, steps %.2f ms, close %.2f ms, total %.2f ms, %.1f/s%n", k, sums[0] / 1e6 / k, sums[1] / 1e6 / k,
                sums[2] / 1e6 / k, sums[3] / 1e6 / k, result.schedulesPerSecond());
    }
}
