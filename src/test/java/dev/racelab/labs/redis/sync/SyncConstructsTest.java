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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The constructs against a real Redis, driven step by step from the test thread: each of the
 * article's faults happens on a schedule the test dictates, and the hardened constructs come
 * through the same schedule. Nothing here waits on a sleep or a clock: a client that must not get
 * a permit looks once ({@link Duration#ZERO}) after the state that decides it is in place, and is
 * checked against what Redis holds; a client that must get one waits for it, and a wait that runs
 * out fails the test.
 */
@Tag("lab")
class SyncConstructsTest {

    /** Short, so that a lease which must run out does so soon. */
    private static final Duration LEASE = Duration.ofMillis(300);
    /**
     * For a holder that must keep its permit past a lease: the keeper renews every third of a
     * lease, so its thread may be held up for two thirds of one (a busy machine, a collector's
     * pause) before the lease runs out; a third of 300 ms was too little on two busy cores.
     */
    private static final Duration KEPT_LEASE = Duration.ofSeconds(1);
    /**
     * For a holder whose lease is no part of the test: it never runs out while the test runs, so
     * a thread held up on a busy machine changes nothing (a 300 ms lease could lapse under one).
     */
    private static final Duration HELD = Duration.ofMinutes(5);
    /** Look once, now: the state that decides the answer is already in Redis. */
    private static final Duration NOW = Duration.ZERO;
    private static final Duration LONG = Duration.ofSeconds(10);

    private final Redis redis = TestServers.redis();
    private final KeySpace space = new KeySpace("test-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()));
    private final Jedis admin = redis.open(space.runId() + ":test", 5_000);
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final Counts counts = new Counts();
    /** What the subscriber and keeper threads threw; any of it fails the test. */
    private final Queue<String> threadFailures = new ConcurrentLinkedQueue<>();
    private final RunThreads threads = RunThreads.unsupervised(
            (thread, failure) -> threadFailures.add(thread + ": " + failure));

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        space.forget(admin);
        admin.close();
        assertEquals(List.of(), List.copyOf(threadFailures), "threads that failed");
    }

    /** What the clients report, summed over clients. */
    static final class Counts implements SyncEvents {
        final AtomicInteger retried = new AtomicInteger();
        final AtomicInteger unread = new AtomicInteger();
        final AtomicInteger reclaimed = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();

        @Override
        public void retried(String construct) {
            retried.incrementAndGet();
        }

        @Override
        public void unread(String construct, int count) {
            unread.addAndGet(count);
        }

        @Override
        public void reclaimed(String construct, long count) {
            reclaimed.addAndGet((int) count);
        }

        @Override
        public void refused(String construct) {
            refused.incrementAndGet();
        }
    }

    private Constructs constructs(Constructs.Variant variant) {
        return constructs(variant, LEASE);
    }

    private Constructs constructs(Constructs.Variant variant, Duration lease) {
        if (variant == Constructs.Variant.ARTICLE) {
            return Constructs.article(space);
        }
        LeaseKeeper keeper = new LeaseKeeper(redis, space, lease, threads);
        toClose.add(keeper);
        return Constructs.hardened(space, keeper);
    }

    private SyncClient client(String name) {
        SyncClient client = SyncClient.open(redis, space, name, counts, threads);
        toClose.add(client);
        return client;
    }

    /** Three clients on one mutex: A holds it, B waits behind A; C comes later. */
    private record Trio(Constructs constructs, SyncClient a, SyncClient b, SyncClient c,
                        Semaphore ma, Semaphore mb, Semaphore mc) {
    }

    private Trio aHoldsAndBWaits(Constructs.Variant variant) {
        return aHoldsAndBWaits(variant, HELD);
    }

    private Trio aHoldsAndBWaits(Constructs.Variant variant, Duration lease) {
        Constructs constructs = constructs(variant, lease);
        constructs.createSemaphore(admin, "mutex", 1);
        SyncClient a = client("client-1");
        SyncClient b = client("client-2");
        SyncClient c = client("client-3");
        Trio t = new Trio(constructs, a, b, c, constructs.mutex(a, "mutex"), constructs.mutex(b, "mutex"),
                constructs.mutex(c, "mutex"));
        assertTrue(t.ma.acquireOrEnqueue(), "A takes the free mutex");
        assertFalse(t.mb.acquireOrEnqueue(), "B finds it taken and joins the queue");
        return t;
    }

    private String counter(Constructs constructs) {
        return admin.get(constructs.counterKey("mutex"));
    }

    // (b) A holder dies.

    @Test
    void articleHolderThatCrashesTakesThePermitWithIt() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.ARTICLE);
        t.a.crash();
        assertEquals("0", counter(t.constructs), "the permit is neither free nor held by anyone alive");
        assertEquals(1, admin.llen(t.constructs.queueKey("mutex")), "B waits for ever");
        assertFalse(t.mb.awaitTurn(NOW), "nobody will ever release for A");
    }

    @Test
    void hardenedHolderThatCrashesLosesItsLeaseAndTheWaiterGoesOn() throws Exception {
        // A's lease ends a lease after A took the mutex at the earliest (renewals only move it
        // later), and A took it after this instant: so B's turn can come no sooner than a lease from here.
        long beforeATookIt = System.nanoTime();
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED, LEASE);
        t.a.crash();
        assertTrue(t.mb.awaitTurn(LONG), "A's lease runs out and its permit goes to B");
        long millis = (System.nanoTime() - beforeATookIt) / 1_000_000;
        // Redis counts whole milliseconds: a lease of 300 ms may end 299.x ms later by our clock.
        assertTrue(millis >= LEASE.toMillis() - 1, "not before the lease ran out: " + millis + " ms");
        assertEquals(1, counts.reclaimed.get());
        assertEquals(List.of(t.b.owner()), admin.zrange(t.constructs.holdersKey("mutex"), 0, -1));
    }

    @Test
    void hardenedHolderThatIsMerelySlowKeepsItsPermitPastManyLeases() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED, KEPT_LEASE);
        String holders = t.constructs.holdersKey("mutex");
        double firstLeaseEnds = admin.zscore(holders, t.a.owner());
        // Renewed at r, a lease ends at r + lease: past this, A was renewed after its first lease ended.
        Poll.until("the keeper renewed A's lease after its first one ended", () -> {
            Double leaseEnds = admin.zscore(holders, t.a.owner());
            return leaseEnds == null || leaseEnds > firstLeaseEnds + KEPT_LEASE.toMillis();
        });
        assertFalse(t.mb.awaitTurn(NOW), "B looks again, and A, alive though idle, still holds the mutex");
        assertEquals(List.of(t.a.owner()), admin.zrange(holders, 0, -1));
        assertTrue(t.ma.release());
        assertTrue(t.mb.awaitTurn(LONG));
        assertEquals(0, counts.reclaimed.get());
    }

    // (a) A wake-up published to a waiter that no longer listens.

    @Test
    void articleWakeUpToAWaiterThatGaveUpIsLostAndTheRetryDoesNotNotice() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.ARTICLE);
        t.mb.stopWaiting();
        assertTrue(t.ma.release(), "PUBLISH counts B, still subscribed: no retry");
        assertEquals(0, counts.retried.get());
        assertFalse(t.mc.acquireOrEnqueue());
        assertEquals(List.of(space.channel(t.c.owner())), admin.lrange(t.constructs.queueKey("mutex"), 0, -1),
                "the release took B off the queue; only C waits");
        assertFalse(t.mc.awaitTurn(NOW), "the permit went to B, who is not waiting for it");
        Poll.until("B received one wake-up it was not waiting for", () -> {
            t.b.reportUnread();
            return counts.unread.get() == 1;
        });
        assertEquals("0", counter(t.constructs));
    }

    @Test
    void articleWakeUpToAWaiterThatVanishedIsLost() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.ARTICLE);
        t.b.vanish();
        assertTrue(t.ma.release());
        assertEquals(0, counts.retried.get(), "PUBLISH counted B's open connection");
        Poll.until("the wake-up sits with B, who will never act on it", () -> t.b.pendingWakeUps() == 1);
        assertFalse(t.mc.acquireOrEnqueue());
        assertEquals("0", counter(t.constructs), "B's permit is neither free nor used");
        assertFalse(t.mc.awaitTurn(NOW), "and nobody will release it for C");
    }

    @Test
    void articleRetrySavesThePermitOfAWaiterThatCrashed() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.ARTICLE);
        t.b.crash();
        assertTrue(t.ma.release());
        assertEquals(1, counts.retried.get(), "PUBLISH reached nobody, so the release ran again");
        assertEquals("1", counter(t.constructs), "the second run found the queue empty and freed the mutex");
        assertTrue(t.mc.acquireOrEnqueue());
    }

    @Test
    void hardenedWaiterThatGivesUpLeavesTheQueueSoTheNextOneGetsThePermit() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
        t.mb.stopWaiting();
        assertTrue(t.ma.release());
        assertTrue(t.mc.acquireOrEnqueue(), "the mutex was free: B had left the queue");
    }

    @Test
    void hardenedWaiterThatGivesUpAfterItWasGrantedPassesThePermitOn() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
        assertFalse(t.mc.acquireOrEnqueue(), "C queues behind B");
        assertTrue(t.ma.release(), "the permit is granted to B, whose wake-up is on its way");
        t.mb.stopWaiting();
        assertTrue(t.mc.awaitTurn(LONG), "B gave up and passed its grant to C");
        assertEquals(0, counts.reclaimed.get(), "at once, without waiting for a lease");
    }

    @Test
    void hardenedReleaseSkipsAWaiterThatCrashed() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
        assertFalse(t.mc.acquireOrEnqueue());
        t.b.crash();
        assertTrue(t.ma.release());
        assertTrue(t.mc.awaitTurn(LONG));
        assertEquals(0, counts.reclaimed.get(), "nobody heard B's wake-up, so C got the permit at once");
    }

    @Test
    void hardenedGrantToAWaiterThatVanishedComesBackOneLeaseLater() throws Exception {
        // A's lease is kept until its release and B's grant must run out: a lease the keeper keeps.
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED, KEPT_LEASE);
        assertFalse(t.mc.acquireOrEnqueue());
        t.b.vanish();
        assertTrue(t.ma.release(), "the permit is granted to B, who will never take it up");
        assertTrue(t.mc.awaitTurn(LONG), "B's grant expires and goes to C");
        assertEquals(1, counts.reclaimed.get());
    }

    // Owners: only a holder releases, and only once.

    @Test
    void articleReleaseSentTwiceLetsTwoWaitersIntoTheMutex() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.ARTICLE);
        assertFalse(t.mc.acquireOrEnqueue());
        t.ma.release();
        t.ma.release();
        assertTrue(t.mb.awaitTurn(LONG));
        assertTrue(t.mc.awaitTurn(LONG), "B and C both hold the mutex");
    }

    @Test
    void hardenedReleaseSentTwiceIsRefusedTheSecondTime() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
        assertFalse(t.mc.acquireOrEnqueue());
        assertTrue(t.ma.release());
        assertFalse(t.ma.release(), "A holds nothing any more");
        assertEquals(1, counts.refused.get());
        assertTrue(t.mb.awaitTurn(LONG));
        assertFalse(t.mc.awaitTurn(NOW), "only B holds the mutex");
        assertEquals(List.of(t.b.owner()), admin.zrange(t.constructs.holdersKey("mutex"), 0, -1));
    }

    /**
     * A client entering a taken monitor is told as soon as its request has its place in the
     * mutex's queue, while it still waits: readers-writers counts the reads that go ahead of a
     * writer from then, not from when its thread asked (a thread held up before it reached Redis
     * made a fair monitor look unfair).
     */
    @Test
    void aClientEnteringATakenMonitorIsToldOnceItIsQueuedAndGetsInWhenTheHolderLeaves() throws Exception {
        Constructs constructs = constructs(Constructs.Variant.ARTICLE);
        constructs.createSemaphore(admin, "monitor", 1);
        Monitor holding = new Monitor(constructs.mutex(client("client-1"), "monitor"), LONG, LONG);
        SyncClient second = client("client-2");
        holding.enter();
        AtomicLong queuedThen = new AtomicLong(-1);
        AtomicBoolean wentIn = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread entering = new Thread(() -> {
            try {
                new Monitor(constructs.mutex(second, "monitor"), LONG, LONG).inside(
                        () -> queuedThen.set(admin.llen(constructs.queueKey("monitor"))), () -> wentIn.set(true));
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "test-entering");
        entering.start();
        try {
            Poll.until("client-2 was told it is queued", () -> queuedThen.get() >= 0);
            assertEquals(1, queuedThen.get(), "its place was in Redis's queue when it was told");
            assertFalse(wentIn.get(), "and it had not got in: client-1 is inside");
        } finally {
            holding.exit();
            entering.join(LONG.toMillis());
        }
        assertNull(failed.get());
        assertTrue(wentIn.get(), "client-1 left, client-2 went in");
    }

    // (c) A woken waiter that does not check again (Mesa semantics: if instead of while).

    /**
     * A consumer waits in the article's monitor until there is an item. The producer adds one and
     * signals; between that signal and the consumer taking the monitor again, a barging consumer
     * takes the item (once). Returns the count of items left after the waiting consumer took one.
     */
    private long consumerAfterABargerTookTheItem(boolean checkAgain) throws Exception {
        Constructs constructs = constructs(Constructs.Variant.ARTICLE);
        constructs.createSemaphore(admin, "monitor", 1);
        constructs.createCondition(admin, "not-empty");
        String items = space.key("items");
        admin.set(items, "0");
        SyncClient waiter = client("consumer-1");
        SyncClient barger = client("consumer-2");
        SyncClient producer = client("producer-1");
        Monitor waiting = new Monitor(constructs.mutex(waiter, "monitor"), LONG, LONG);
        Monitor barging = new Monitor(constructs.mutex(barger, "monitor"), LONG, LONG);
        Monitor producing = new Monitor(constructs.mutex(producer, "monitor"), LONG, LONG);
        Condition notEmptyForWaiter = constructs.condition(waiter, "not-empty");
        Condition notEmptyForProducer = constructs.condition(producer, "not-empty");
        Monitor.Check empty = () -> Long.parseLong(waiter.commands().get(items)) == 0;
        AtomicBoolean barged = new AtomicBoolean();
        Monitor.Step barge = () -> {
            if (!barged.getAndSet(true)) {
                barging.enter();
                barger.commands().decr(items);
                barging.exit();
            }
        };

        AtomicLong seen = new AtomicLong(Long.MIN_VALUE);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread consumer = new Thread(() -> {
            try {
                waiting.enter();
                if (checkAgain) {
                    waiting.waitWhile(notEmptyForWaiter, empty, barge);
                } else {
                    waiting.waitIf(notEmptyForWaiter, empty, barge);
                }
                seen.set(waiter.commands().decr(items));
                waiting.exit();
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "consumer-1");
        consumer.start();
        String queue = constructs.queueKey("not-empty");
        while (consumer.isAlive()) {
            if (admin.llen(queue) == 1) {
                producing.enter();
                producer.commands().incr(items);
                notEmptyForProducer.signal();
                producing.exit();
            }
            consumer.join(5);
        }
        assertEquals(null, failed.get());
        return seen.get();
    }

    @Test
    void mesaIfLetsTheWokenWaiterTakeAnItemThatIsNoLongerThere() throws Exception {
        assertEquals(-1, consumerAfterABargerTookTheItem(false), "the consumer took an item that did not exist");
    }

    @Test
    void mesaWhileMakesTheWokenWaiterCheckAgainAndWaitForTheNextItem() throws Exception {
        assertEquals(0, consumerAfterABargerTookTheItem(true), "the consumer took the second item, never a missing one");
    }
}
