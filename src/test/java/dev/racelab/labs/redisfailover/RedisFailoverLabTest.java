package dev.racelab.labs.redisfailover;

import dev.racelab.engine.Clock;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The redis-failover lab on RaceLab's own Redis with Sentinels (real processes, a real failover in
 * every run) and the suite's PostgreSQL: with the defaults the lock alone lets two clients hold it
 * and the stale holder's write stand; a token from Redis is handed out twice; a token from
 * PostgreSQL has the stale write rejected; WAIT for the replica never lets two clients hold it.
 */
@Tag("lab")
class RedisFailoverLabTest {

    private static final Duration WAIT = Duration.ofSeconds(180);

    private final RedisFailoverLab lab = new RedisFailoverLab(TestServers.failover());

    private Outcome run(String strategy) throws Exception {
        RunSpec spec = lab.defaults().withStrategy(strategy);
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        return run.awaitOutcome(WAIT);
    }

    private static long metric(Outcome outcome, String name) {
        return outcome.metrics().get(name).longValue();
    }

    @Test
    void theLockAloneLetsTwoClientsHoldItAndTheStaleWriteStands() throws Exception {
        Outcome outcome = run("lock-only");
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.headline() + " — " + outcome.explanation());
        assertTrue(outcome.headline().startsWith("two holders: client-1 (on redis-"), outcome.headline());
        assertEquals(1, metric(outcome, "twoHolders"));
        assertEquals(1, metric(outcome, "staleWritesAccepted"), "client-1's late write overwrote client-2's");
        long failover = metric(outcome, "failoverMs");
        assertTrue(failover > 0 && failover < 4_000, "the failover took " + failover + " ms");
    }

    @Test
    void aTokenFromRedisIsHandedOutTwice() throws Exception {
        Outcome outcome = run("redis-token");
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.headline());
        assertTrue(outcome.headline().startsWith("duplicate token: token 1 to client-1 and client-2"),
                outcome.headline());
    }

    @Test
    void aTokenFromPostgresHasEveryStaleWriteRejectedAndWaitLetsNoTwoHoldIt() throws Exception {
        Outcome fenced = run("pg-fence");
        assertEquals(Verdict.SAFE, fenced.verdict(), fenced.headline() + " — " + fenced.explanation());
        assertEquals(1, metric(fenced, "twoHolders"), "two clients did hold the lock");
        assertEquals(1, metric(fenced, "staleWritesRejected"), "client-1's stale write was rejected");
        assertEquals(0, metric(fenced, "staleWritesAccepted"));
        assertEquals(2, metric(fenced, "recordToken"), "the record keeps client-2's token");

        Outcome waited = run("wait-replica");
        assertEquals(Verdict.SAFE, waited.verdict(), waited.headline() + " — " + waited.explanation());
        assertEquals(0, metric(waited, "twoHolders"));
        assertEquals(2, metric(waited, "writes"), "both clients wrote, one after the other");
    }
}
