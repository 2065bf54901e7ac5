package dev.racelab.labs.explore;

import dev.racelab.engine.Clock;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.explore.Exploration;
import dev.racelab.engine.explore.Explorer;
import dev.racelab.engine.explore.Found;
import dev.racelab.engine.explore.Method;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every lab a schedule can order, explored with at most two preemptions on the real servers: each
 * broken strategy fails in some schedule, shrunk to one with the fewest preemptions that fails so
 * and followed again to the same end; each fix fails in none of the whole bounded space.
 */
@Tag("lab")
class ExploreLabsTest {

    private static final Explorer.Settings BOUNDED = new Explorer.Settings(Method.BOUNDED, 2, 3, 1, 100_000,
            Duration.ofSeconds(60), Duration.ofSeconds(60));

    private final Labs labs = new Labs(TestServers.backends());

    @BeforeAll
    static void keepSessions() throws Exception {
        TestServers.postgres().keepSessions(true);
    }

    @AfterAll
    static void closeKeptSessions() throws Exception {
        TestServers.postgres().keepSessions(false);
    }

    private Exploration explore(String labId, String strategy, int workers, String switches) throws Exception {
        return explore(labId, strategy, workers, switches, BOUNDED);
    }

    private Exploration explore(String labId, String strategy, int workers, String switches, Explorer.Settings how)
            throws Exception {
        Lab lab = labs.find(labId).orElseThrow();
        RunSpec spec = lab.defaults().withStrategy(strategy).withWorkers(workers).withOps(lab.exploredOps());
        for (String set : switches.isEmpty() ? new String[0] : switches.split(" ")) {
            String[] kv = set.split("=", 2);
            spec = spec.withSwitches(spec.switches().parse(lab.profile().switchNamed(kv[0]).orElseThrow(), kv[1]));
        }
        return new Explorer(lab, spec, Clock.system(), run -> { }).explore(how, new Explorer.Listener() {
            @Override
            public void ran(Found schedule, RunRecord record) {
            }
        });
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "counter, read-modify-write, 2, '', 1",
        "fencing, blind-write, 2, '', 1",
        "fencing, check-then-write, 2, '', 1",
        "job-queue, select-then-update, 3, batch=1, 1",
        "advisory-lock, session-pooled, 2, work-ms=0, 1",
        "lease-fencing, lease-only, 2, '', 1",
        "lease-fencing, lease-check-owner, 2, '', 1",
        "redis-primitives, article-mutex, 3, '', 0",
        "redis-primitives, article-semaphore, 3, '', 0",
        "readers-writers, reader-preference, 2, '', 1",
        "readers-writers, mesa-if, 2, '', 1",
        "dining-philosophers, naive, 3, '', 1",
    })
    void aBrokenStrategyFailsAndShrinksToTheFewestPreemptions(String lab, String strategy, int workers,
                                                              String switches, int fewest) throws Exception {
        Exploration found = explore(lab, strategy, workers, switches);
        assertTrue(found.failingCount() > 0, found.outcomes().toString());
        assertTrue(found.firstFailureNanos() < Duration.ofSeconds(60).toNanos());
        assertNull(found.serverFailure());
        Exploration.Shrunk shrunk = found.shrunk();
        assertNotNull(shrunk);
        assertEquals(fewest, shrunk.found().preemptions(), shrunk.found().interleaving());
        assertTrue(shrunk.fewest(), "no schedule with fewer preemptions fails so");
        assertTrue(shrunk.confirmed(), "followed again, it ends the same way: " + shrunk.found().interleaving());
        assertTrue(shrunk.found().verdict() != Verdict.SAFE && shrunk.found().verdict() != Verdict.ERROR);
        assertEquals(shrunk.found().schedule(), shrunk.record().header().spec().schedule(),
                "its run's record carries the schedule it followed");
    }

    /**
     * The isolation lab's sessions by hand, on its teaching spec of the lost update: its first
     * permutation (read committed) loses a deposit in some order of the steps; the first 30
     * schedules of the bounded space (each a sandboxed spec run: slow) find it.
     */
    @Test
    void theIsolationLabsSessionsLoseAnUpdateInSomeOrderOfTheirSteps() throws Exception {
        Exploration found = explore("isolation", "by-hand", 3, "", new Explorer.Settings(Method.BOUNDED, 2, 3, 1, 30,
                Duration.ofSeconds(60), Duration.ofSeconds(60)));
        assertTrue(found.failingCount() > 0, found.outcomes().toString());
        Exploration.Shrunk shrunk = found.shrunk();
        assertNotNull(shrunk);
        assertEquals(Verdict.RACE, shrunk.found().verdict(), shrunk.found().interleaving());
        // Not asserted: that it ends the same way followed again. The lab's waits are its runner's
        // last look at the server (every 10 ms), not the server's now: under load a session
        // unblocked between looks is taken for waiting, and a schedule may go otherwise.
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "counter, atomic-update, 2, ''",
        "counter, select-for-update, 2, ''",
        "counter, serializable-retry, 2, ''",
        "fencing, fenced-cas, 2, ''",
        "job-queue, request-token, 3, batch=1",
        "job-queue, skip-locked, 3, batch=1",
        "lease-fencing, fenced, 2, ''",
        "advisory-lock, session-pinned, 2, work-ms=0",
        "advisory-lock, xact-lock, 2, work-ms=0",
        "redis-primitives, hardened-mutex, 3, ''",
        "redis-primitives, hardened-semaphore, 3, ''",
        "readers-writers, writer-preference, 2, ''",
        "readers-writers, fair, 2, ''",
        "dining-philosophers, ordered, 3, ''",
        "dining-philosophers, waiter, 3, ''",
        "dining-philosophers, try-backoff, 3, ''",
    })
    void aFixFailsInNoScheduleOfTheWholeBoundedSpace(String lab, String strategy, int workers, String switches)
            throws Exception {
        Exploration found = explore(lab, strategy, workers, switches);
        if ("diverged".equals(found.stoppedBy())) {
            // A lab whose waits are its runner's last look at the server (every 10 ms): under load a
            // session unblocked between looks is taken for waiting, the tree changes under the
            // search, and the count is not the space's. Explored once more; a fix still fails in none.
            assertEquals(0, found.failingCount(), found.outcomes().toString());
            found = explore(lab, strategy, workers, switches);
        }
        assertTrue(found.exhausted(), "the whole space ran: " + found.schedules() + " schedules (stopped by "
                + found.stoppedBy() + ", server " + found.serverFailure() + ")");
        assertEquals(found.schedules(), found.space());
        assertEquals(0, found.failingCount(), found.outcomes().toString());
        assertNull(found.shrunk());
    }

    /**
     * The hardened mutex through two faults at once: client-2 crashes holding it (the lab's preset)
     * and client-3 freezes once queued, still subscribed, so a permit can be handed to it later
     * and nobody renews it. Each lease runs out when the schedule lets time pass; no schedule of the
     * whole bounded space ends with a permit lost or a worker left waiting.
     */
    @Test
    void theHardenedMutexComesThroughACrashedHolderAndAFrozenWaiterInEverySchedule() throws Exception {
        Lab lab = labs.find("redis-primitives").orElseThrow();
        RunSpec spec = lab.defaults().withStrategy("hardened-mutex").withWorkers(3).withOps(1);
        spec = spec.withGates(spec.gates().with("waiter-vanishes", 2, GateRule.fixed(1)));
        Exploration found = new Explorer(lab, spec, Clock.system(), run -> { }).explore(BOUNDED,
                new Explorer.Listener() {
                    @Override
                    public void ran(Found schedule, RunRecord record) {
                    }
                });
        assertTrue(found.exhausted(), "the whole space ran: " + found.schedules() + " schedules");
        assertEquals(0, found.failingCount(), found.outcomes().toString());
    }
}
