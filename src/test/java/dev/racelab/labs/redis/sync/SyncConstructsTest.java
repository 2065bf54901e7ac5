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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The constructs against a real Redis, driven step by step from the test thread: each of the
 * article's faults happens on a schedule the test dictates, and the hardened constructs come
 * through the same schedule. Nothing here waits on a sleep: a client that must not get a permit
 * is given a bounded wait and must come back empty-handed.
 */
@Tag("lab")
class SyncConstructsTest {

    private static final Duration LEASE = Duration.ofMillis(300);
    private static final Duration SHORT = Duration.ofMillis(400);
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
        if (variant == Constructs.Variant.ARTICLE) {
            return Constructs.article(space);
        }
        LeaseKeeper keeper = new LeaseKeeper(redis, space, LEASE, threads);
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
        Constructs constructs = constructs(variant);
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
        assertFalse(t.mb.awaitTurn(SHORT), "nobody will ever release for A");
        assertEquals("0", counter(t.constructs), "the permit is neither free nor held by anyone alive");
        assertEquals(1, admin.llen(t.constructs.queueKey("mutex")), "B waits for ever");
    }

    @Test
    void hardenedHolderThatCrashesLosesItsLeaseAndTheWaiterGoesOn() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
        long crashed = System.nanoTime();
        t.a.crash();
        assertTrue(t.mb.awaitTurn(LONG), "A's lease runs out and its permit goes to B");
        long millis = (System.nanoTime() - crashed) / 1_000_000;
        assertTrue(millis >= LEASE.toMillis() - 20, "not before the lease ran out: " + millis + " ms");
        assertEquals(1, counts.reclaimed.get());
        assertEquals(List.of(t.b.owner()), admin.zrange(t.constructs.holdersKey("mutex"), 0, -1));
    }

    @Test
    void hardenedHolderThatIsMerelySlowKeepsItsPermitPastManyLeases() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
        assertFalse(t.mb.awaitTurn(LEASE.multipliedBy(4)), "the keeper renews A's lease while A lives");
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
        assertFalse(t.mc.awaitTurn(SHORT), "the permit went to B, who is not waiting for it");
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
        assertFalse(t.mc.awaitTurn(SHORT));
        assertEquals("0", counter(t.constructs));
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
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
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
        assertTrue(t.mb.awaitTurn(SHORT));
        assertTrue(t.mc.awaitTurn(SHORT), "B and C both hold the mutex");
    }

    @Test
    void hardenedReleaseSentTwiceIsRefusedTheSecondTime() throws Exception {
        Trio t = aHoldsAndBWaits(Constructs.Variant.HARDENED);
        assertFalse(t.mc.acquireOrEnqueue());
        assertTrue(t.ma.release());
        assertFalse(t.ma.release(), "A holds nothing any more");
        assertEquals(1, counts.refused.get());
        assertTrue(t.mb.awaitTurn(LONG));
        assertFalse(t.mc.awaitTurn(SHORT), "only B holds the mutex");
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
