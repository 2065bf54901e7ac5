package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import dev.racelab.engine.RunThreads;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.HexFormat;
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
    /** Renewed every 100 ms: a keeper thread late by less than 200 ms on a busy machine still keeps it. */
    private static final Duration KEPT_LEASE = Duration.ofMillis(300);
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
        long took = System.nanoTime();
        assertEquals(1, la.tryAcquire());
        assertEquals(0, lb.tryAcquire());
        // B asks again and again for three leases' time: A's lease is renewed all along.
        assertEquals(0, lb.awaitTurn(KEPT_LEASE.multipliedBy(3)), "A's running process kept its lease");
        assertTrue(System.nanoTime() - took > KEPT_LEASE.multipliedBy(3).toNanos());
        assertTrue(la.held());

        la.suspendRenewal();
        assertEquals(2, lb.awaitTurn(LONG), "A's process paused: its lease ran out and B got the lock");
        la.resumeRenewal();
        assertFalse(la.held(), "renewing again brings back nothing");
        assertFalse(la.release());
        assertTrue(lb.held());
    }
}
