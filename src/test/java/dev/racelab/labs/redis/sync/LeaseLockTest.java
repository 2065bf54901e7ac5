package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import dev.racelab.engine.RunThreads;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease lock on a real Redis: every lease gets the next fencing token, only the holder's
 * release deletes the lock, Redis lets a lease go by itself, and a keeper renews a lease while its
 * holder runs, but not while it is suspended (its process paused).
 */
@Tag("lab")
class LeaseLockTest {

    private static final Duration LEASE = Duration.ofMillis(100);
    /** Renewed every third of it: a keeper thread late by a second on a busy machine still keeps it. */
    private static final Duration KEPT_LEASE = Duration.ofMillis(1_500);
    private static final Duration LONG = Duration.ofSeconds(10);

    private final Redis redis = TestServers.redis();
    private final KeySpace space = new KeySpace("test-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()));
    private final Jedis admin = redis.open(space.runId() + ":test", 5_000);
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final RunThreads threads = RunThreads.unsupervised((thread, failure) -> failures.add(failure));
    private final SyncClient a = SyncClient.open(redis, space, "client-1", SyncEvents.NONE, threads);
    private final SyncClient b = SyncClient.open(redis, space, "client-2", SyncEvents.NONE, threads);
    private LeaseKeeper keeper;

    @AfterEach
    void cleanUp() {
        b.close();
        a.close();
        if (keeper != null) {
            keeper.close();
        }
        space.forget(admin);
        admin.close();
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void eachLeaseGetsTheNextTokenAndOnlyItsHolderReleasesIt() {
        Constructs constructs = Constructs.article(space);
        LeaseLock la = constructs.leaseLock(a, "lock", LONG);
        LeaseLock lb = constructs.leaseLock(b, "lock", LONG);
        assertEquals(1, la.tryAcquire(), "A takes the free lock with the first token");
        assertEquals(0, lb.tryAcquire(), "B finds it taken");
        assertFalse(lb.release(), "B holds nothing: its release is refused");
        assertTrue(la.held(), "and deleted nothing of A's");
        assertTrue(la.release());
        assertEquals(2, lb.tryAcquire(), "the next lease, the next token");
        assertFalse(la.held());
        assertEquals("2", admin.get(constructs.tokenKey("lock")));
        assertEquals(b.owner(), admin.get(constructs.lockKey("lock")));
    }

    @Test
    void aLeaseRunsOutByItselfAndTheOldHoldersReleaseDeletesNothing() throws Exception {
        Constructs constructs = Constructs.article(space);
        LeaseLock la = constructs.leaseLock(a, "lock", LEASE);
        LeaseLock lb = constructs.leaseLock(b, "lock", LEASE);
        assertEquals(1, la.tryAcquire());
        assertEquals(0, lb.tryAcquire());
        assertEquals(2, lb.awaitTurn(LONG), "B gets the lock once A's lease ran out, though A never let it go");
        assertFalse(la.held(), "A no longer holds it, whatever A believes");
        assertFalse(la.release(), "A's late release is refused");
        assertTrue(lb.held(), "and B's lease is untouched");
    }

    @Test
    void theKeeperRenewsARunningHolderButNotASuspendedOne() throws Exception {
        keeper = new LeaseKeeper(redis, space, KEPT_LEASE, threads);
        Constructs constructs = Constructs.hardened(space, keeper);
        LeaseLock la = constructs.leaseLock(a, "lock", KEPT_LEASE);
        LeaseLock lb = constructs.leaseLock(b, "lock", KEPT_LEASE);
        assertEquals(1, la.tryAcquire());
        String lock = constructs.lockKey("lock");
        // Renewed is what Redis says: the lease's end, on Redis's clock, moves later twice over,
        // while A's process runs. (Watched, not timed: a keeper late on a busy machine is slower
        // to be seen, not wrong.)
        long end = leaseEnd(lock);
        for (int renewal = 1; renewal <= 2; renewal++) {
            long before = end;
            // A renewal pushes the end a third of a lease later (500 ms); the clocks' rounding, 1 ms.
            assertTrue(Poll.eventually(LONG, () -> leaseEnd(lock) > before + 100), "renewal " + renewal + " came");
            end = leaseEnd(lock);
            assertTrue(la.held(), "A still holds the lock after renewal " + renewal);
            assertEquals(0, lb.tryAcquire(), "B finds it taken after renewal " + renewal);
        }

        la.suspendRenewal();
        assertEquals(2, lb.awaitTurn(LONG), "A's process paused: its lease ran out and B got the lock");
        la.resumeRenewal();
        assertFalse(la.held(), "renewing again brings back nothing");
        assertFalse(la.release());
        assertTrue(lb.held());
    }

    /** When the lease on {@code key} ends, in ms on Redis's own clock; fails if no lease is there. */
    private long leaseEnd(String key) {
        long left = admin.pttl(key);
        assertTrue(left > 0, "the lease on " + key + " is there, with an end (PTTL " + left + ")");
        List<String> now = admin.time();
        return Long.parseLong(now.get(0)) * 1_000 + Long.parseLong(now.get(1)) / 1_000 + left;
    }
}
