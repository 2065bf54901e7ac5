package dev.racelab.labs;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.SwitchValues;
import dev.racelab.labs.leasefencing.LeaseFencingLab;
import dev.racelab.labs.philosophers.PhilosophersLab;
import dev.racelab.labs.primitives.PrimitivesLab;
import dev.racelab.labs.readerswriters.ReadersWritersLab;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stopping a Redis lab while its workers wait on Redis leaves nothing behind: no worker,
 * subscriber or lease-keeper thread, no connection named after the run, no key of the run.
 */
@Tag("lab")
class RedisRunStopTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * Starts {@code spec}, waits until {@code waiting} workers wait, stops it, checks the leftovers.
     * Where the workers' waits would be judged by the run itself after a quiet second (a deadlock,
     * a mutex lost for good), {@code held} is one more worker kept at a breakpoint: a worker held
     * at a gate is the user's doing, not a stall, so the run goes on until the test stops it,
     * however long a busy machine makes the test take to see the waits; -1 when no worker is held.
     */
    private static void stopWhileWorkersWait(Lab lab, RunSpec spec, ActorState state, int waiting, int held)
            throws Exception {
        Run run = new Run(lab, spec.withTimeout(Duration.ofMinutes(5)), Clock.system());
        run.start();
        if (held >= 0) {
            assertTrue(run.gates().awaitSettled(held, WAIT) != null, "the held worker halted");
        }
        Poll.until("the workers all wait", () -> waitingNow(run, state) >= waiting);
        run.stop();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertTrue(outcome.explanation().startsWith("Stopped by the user"), outcome.explanation());

        Set<String> workers = new HashSet<>();
        for (int i = 0; i < spec.workers(); i++) {
            workers.add(lab.workerName(i));
        }
        List<String> threads = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> workers.contains(name) || name.contains(run.id())).toList();
        assertEquals(List.of(), threads, "threads left behind");
        try (Jedis redis = TestServers.redis().open("test:leftovers", 5_000)) {
            List<String> clients = redis.clientList().lines().filter(line -> line.contains("name=racelab:" + run.id()))
                    .toList();
            assertEquals(List.of(), clients, "connections left behind");
            assertEquals(List.of(), redis.scan(ScanParams.SCAN_POINTER_START,
                    new ScanParams().match("racelab:" + run.id() + ":*").count(10_000)).getResult(), "keys left behind");
        }
    }

    /** How many workers are in {@code state} now, by the last state event of each. */
    private static int waitingNow(Run run, ActorState state) {
        java.util.Map<Integer, ActorState> last = new java.util.HashMap<>();
        for (Event e : run.recorder().snapshot()) {
            if (e.kind() == EventKind.STATE) {
                last.put(e.actor(), e.state());
            }
        }
        return (int) last.values().stream().filter(s -> s == state).count();
    }

    @Test
    void stoppingPhilosophersWaitingInAChainForTheirForksLeavesNothingBehind() throws Exception {
        PhilosophersLab lab = new PhilosophersLab(TestServers.backends());
        // Philosopher-5 halts holding its left fork: the other four hold theirs and wait in a chain.
        stopWhileWorkersWait(lab, lab.defaults().withObserve(true)
                .withGates(GatePlan.NONE.with("between-forks", GateRule.fixed(100))
                        .with("between-forks", 4, GateRule.BREAKPOINT)), ActorState.HOLDING, 4, 4);
    }

    @Test
    void stoppingTheArticlesMutexWithWaitersQueuedLeavesNothingBehind() throws Exception {
        PrimitivesLab lab = new PrimitivesLab(TestServers.backends());
        // Client-5 is held before it asks: the other three wait for ever behind the crashed holder.
        stopWhileWorkersWait(lab, lab.defaults().withWorkers(5).withObserve(true)
                .withGates(GatePlan.NONE.with("holder-crashes", 0, GateRule.fixed(1))
                        .with("before-acquire", 4, GateRule.BREAKPOINT)), ActorState.WAITING, 3, 4);
    }

    @Test
    void stoppingLeaseFencingWhileTheHolderIsSlowAndTheOthersWaitLeavesNothingBehind() throws Exception {
        LeaseFencingLab lab = new LeaseFencingLab(TestServers.backends());
        stopWhileWorkersWait(lab, lab.defaults().withWorkers(3).withObserve(true)
                .withSwitches(SwitchValues.DEFAULTS.parse(lab.profile().switchNamed("keeper").orElseThrow(), "true"))
                .withGates(GatePlan.NONE.with("slow-write", GateRule.fixed(60_000))), ActorState.WAITING, 2, -1);
    }

    @Test
    void stoppingTheHardenedMonitorWithWaitersLeavesNothingBehind() throws Exception {
        ReadersWritersLab lab = new ReadersWritersLab(TestServers.backends());
        stopWhileWorkersWait(lab, lab.defaults().withStrategy("fair").withWorkers(6).withOps(1000)
                .withGates(GatePlan.NONE.with("between-writes", GateRule.fixed(60_000))), ActorState.WAITING, 5, -1);
    }
}
