package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import dev.racelab.engine.RunThreads;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One handle's renewal failing never costs another holder its lease. Client A holds a hardened
 * mutex on a real Redis and client B waits for it, while the keeper also keeps a handle whose
 * renewal throws. A's lease must still be renewed (past the end of its first lease B, looking, gets
 * nothing, and A's release is accepted, so A held the mutex all along), and what was not the server's fault must reach the
 * run's threads' failure sink.
 */
@Tag("lab")
class LeaseKeeperTest {

    private static final Duration LEASE = Duration.ofMillis(500);
    private static final Duration LONG = Duration.ofSeconds(10);

    private final Redis redis = TestServers.redis();
    private final KeySpace space = new KeySpace("test-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()));
    private final Jedis admin = redis.open(space.runId() + ":test", 5_000);
    /** What the sink was given: the failures of the run's threads, as a run would record them. */
    private final Queue<Failure> failures = new ConcurrentLinkedQueue<>();
    private final RunThreads threads = RunThreads.unsupervised(
            (thread, failure) -> failures.add(new Failure(thread, failure)));
    private final LeaseKeeper keeper = new LeaseKeeper(redis, space, LEASE, threads);
    private final Constructs constructs = Constructs.hardened(space, keeper);
    private final SyncClient a = SyncClient.open(redis, space, "client-1", SyncEvents.NONE, threads);
    private final SyncClient b = SyncClient.open(redis, space, "client-2", SyncEvents.NONE, threads);

    private record Failure(String thread, Throwable failure) {
    }

    @AfterEach
    void cleanUp() {
        b.close();
        a.close();
        keeper.close();
        space.forget(admin);
        admin.close();
    }

    /** A handle whose renewal throws {@code failure} its first {@code times} turns, and renews nothing after. */
    private static final class Faulty implements LeaseKeeper.Leased {
        private final RuntimeException failure;
        private final AtomicInteger left;

        Faulty(RuntimeException failure, int times) {
            this.failure = failure;
            this.left = new AtomicInteger(times);
        }

        @Override
        public boolean renew(Jedis keeperConnection) {
            if (left.getAndDecrement() > 0) {
                throw failure;
            }
            return true;
        }

        @Override
        public void abandon() {
        }

        @Override
        public void runOut(Jedis connection) {
        }

        @Override
        public boolean held(Jedis connection) {
            return false;
        }

        @Override
        public String toString() {
            return "a faulty handle";
        }
    }

    /**
     * With {@code faulty} kept beside it, A takes the mutex and B queues for it; waits until A's
     * lease was renewed after its first one ended (renewed at r, a lease ends at r + lease), then
     * asserts that B, looking, gets nothing, and that A still holds the mutex and hands it to B.
     */
    private void aKeepsTheMutexBeside(Faulty faulty) throws Exception {
        keeper.keep(faulty);
        constructs.createSemaphore(admin, "mutex", 1);
        Semaphore ma = constructs.mutex(a, "mutex");
        Semaphore mb = constructs.mutex(b, "mutex");
        assertTrue(ma.acquireOrEnqueue(), "A takes the free mutex");
        assertFalse(mb.acquireOrEnqueue(), "B finds it taken and joins the queue");
        String holders = constructs.holdersKey("mutex");
        double firstLeaseEnds = admin.zscore(holders, a.owner());
        Poll.until("the keeper renewed A's lease after its first one ended", () -> {
            Double leaseEnds = admin.zscore(holders, a.owner());
            return leaseEnds == null || leaseEnds > firstLeaseEnds + LEASE.toMillis();
        });
        assertFalse(mb.awaitTurn(Duration.ZERO), "A's lease was not renewed: B got the mutex");
        assertTrue(ma.release(), "A's release was refused: its lease had run out");
        assertTrue(mb.awaitTurn(LONG), "B gets the mutex A released");
    }

    @Test
    void aRenewalThatAlwaysThrowsIsRecordedEveryTurnAndOtherLeasesAreStillRenewed() throws Exception {
        RuntimeException defect = new IllegalStateException("a defect in renewing");
        aKeepsTheMutexBeside(new Faulty(defect, Integer.MAX_VALUE));
        assertTrue(failures.size() >= 2, "each turn reports the defect, and there were several: " + failures);
        for (Failure f : failures) {
            assertEquals("lease-keeper-" + space.runId(), f.thread());
            assertSame(defect, f.failure().getCause());
        }
    }

    @Test
    void aRenewalThatThrowsOnceIsRecordedOnceAndLaterTurnsGoOn() throws Exception {
        RuntimeException defect = new IllegalStateException("a defect in renewing");
        aKeepsTheMutexBeside(new Faulty(defect, 1));
        assertEquals(1, failures.size(), "the one failure, reported once: " + failures);
        assertSame(defect, failures.peek().failure().getCause());
    }

    @Test
    void theServerFailingARenewalIsPassedOverWithoutFailingTheRun() throws Exception {
        aKeepsTheMutexBeside(new Faulty(new JedisConnectionException("connection reset"), Integer.MAX_VALUE));
        assertEquals(List.of(), List.copyOf(failures), "a Redis failure is the labs' to report, not a defect");
    }
}
