package dev.racelab.labs.redis.sync;

import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Makes the synchronization constructs of one run, all of one {@link Variant}: creates their
 * keys, hands each client its handles, and names the keys for whoever observes them.
 *
 * <p>A construct {@code name} keeps its counter of free permits at {@code <run>:name}, its wait
 * queue at {@code <run>:name:queue}, and (hardened only) its holders and their leases at
 * {@code <run>:name:holders}. A condition has only a queue. A lease lock keeps its holder at
 * {@code <run>:name}, expiring with the lease, and its fencing token counter at {@code <run>:name:token}.
 */
public final class Constructs {

    public enum Variant {
        /** The article's scripts as written. */
        ARTICLE,
        /** Owner ids, leases and grants recorded before the wake-up. */
        HARDENED
    }

    private final KeySpace space;
    private final Variant variant;
    private final LeaseKeeper keeper;

    private Constructs(KeySpace space, Variant variant, LeaseKeeper keeper) {
        this.space = space;
        this.variant = variant;
        this.keeper = keeper;
    }

    public static Constructs article(KeySpace space) {
        return new Constructs(space, Variant.ARTICLE, null);
    }

    /** The hardened constructs; {@code keeper} renews their leases and is closed by the caller. */
    public static Constructs hardened(KeySpace space, LeaseKeeper keeper) {
        return new Constructs(space, Variant.HARDENED, keeper);
    }

    public Variant variant() {
        return variant;
    }

    public KeySpace space() {
        return space;
    }

    /** Creates semaphore {@code name} with {@code permits} free permits, nobody waiting, nobody holding. */
    public void createSemaphore(Jedis jedis, String name, int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("a semaphore needs at least one permit: " + name);
        }
        jedis.del(queueKey(name), holdersKey(name));
        jedis.set(counterKey(name), Integer.toString(permits));
    }

    /** Creates condition {@code name}: an empty queue. */
    public void createCondition(Jedis jedis, String name) {
        jedis.del(queueKey(name));
    }

    /** {@code client}'s handle on semaphore {@code name}. */
    public Semaphore semaphore(SyncClient client, String name) {
        return variant == Variant.ARTICLE
                ? new ArticleSemaphore(client, name, keys(name), false)
                : hardenedSemaphore(client, name);
    }

    /**
     * {@code client}'s handle on mutex {@code name} (a semaphore created with one permit). The
     * article's mutex differs from its semaphore only in its release, which never counts above one.
     */
    public Semaphore mutex(SyncClient client, String name) {
        return variant == Variant.ARTICLE
                ? new ArticleSemaphore(client, name, keys(name), true)
                : hardenedSemaphore(client, name);
    }

    /** A hardened handle, for what only the hardened semaphore offers ({@link HardenedSemaphore#tryAcquire}). */
    public HardenedSemaphore hardenedSemaphore(SyncClient client, String name) {
        if (variant != Variant.HARDENED) {
            throw new IllegalStateException("these are the article's constructs; they have no owners or leases");
        }
        return new HardenedSemaphore(client, name, List.of(counterKey(name), queueKey(name),
                holdersKey(name)), keeper);
    }

    /**
     * {@code client}'s handle on lease lock {@code name}, taken for {@code lease} at a time. The
     * hardened constructs' keeper renews it while its holder's process runs; the article's
     * constructs have no keeper, so nothing renews it. The lock needs no creating: absent is free.
     */
    public LeaseLock leaseLock(SyncClient client, String name, Duration lease) {
        return new LeaseLock(client, name, List.of(lockKey(name), tokenKey(name)), lease, keeper);
    }

    /** {@code client}'s handle on condition {@code name}. */
    public Condition condition(SyncClient client, String name) {
        return variant == Variant.ARTICLE
                ? new ArticleCondition(client, name, queueKey(name))
                : new HardenedCondition(client, name, queueKey(name));
    }

    /**
     * How long a monitor waiter waits for a signal before it checks again by itself: the article
     * waits for as long as {@code patience}; the hardened version every third of a lease.
     */
    public Duration signalWait(Duration patience) {
        return variant == Variant.ARTICLE ? patience : keeper.recheckEvery();
    }

    /**
     * The workers in a wait queue as Redis holds it ({@code LRANGE 0 -1}), oldest first: the
     * article pushes at the left and pops at the right, the hardened queue the other way round.
     */
    public List<String> waitingInOrder(List<String> queue) {
        List<String> workers = new ArrayList<>(queue.size());
        queue.forEach(entry -> workers.add(KeySpace.workerOf(entry)));
        if (variant == Variant.ARTICLE) {
            Collections.reverse(workers);
        }
        return workers;
    }

    /** Who waits for {@code name} now, oldest first, by worker name. */
    public List<String> waiting(Jedis jedis, String name) {
        return waitingInOrder(jedis.lrange(queueKey(name), 0, -1));
    }

    /** Who holds a permit of {@code name} now, by worker name; the article's constructs do not know. */
    public List<String> holding(Jedis jedis, String name) {
        if (variant == Variant.ARTICLE) {
            return List.of();
        }
        return jedis.zrange(holdersKey(name), 0, -1).stream().map(KeySpace::workerOf).toList();
    }

    /** A lease lock's key: its holder's owner id, expiring with the lease; absent while nobody holds it. */
    public String lockKey(String name) {
        return space.key(name);
    }

    /** A lease lock's fencing token counter: the token of the latest lease granted. */
    public String tokenKey(String name) {
        return space.key(name + ":token");
    }

    public String counterKey(String name) {
        return space.key(name);
    }

    public String queueKey(String name) {
        return space.key(name + ":queue");
    }

    /** The holders' sorted set; the article's constructs keep none, so it is never written there. */
    public String holdersKey(String name) {
        return space.key(name + ":holders");
    }

    private List<String> keys(String name) {
        return List.of(counterKey(name), queueKey(name));
    }
}
