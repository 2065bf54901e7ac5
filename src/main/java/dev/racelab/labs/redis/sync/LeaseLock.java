package dev.racelab.labs.redis.sync;

import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;

/**
 * A lock with a lease, the way it is usually built on one Redis: {@code SET lock owner NX PX
 * lease} takes it, and Redis itself lets it go when the lease runs out, so a holder that dies
 * cannot keep it for ever. Every lease comes with a fencing token, one higher than the last,
 * taken in the same script as the lock ({@code INCR}), so the order of the tokens is the order of
 * the leases. Releasing is compare-and-delete: a client whose lease ran out deletes nothing, not
 * even the lease of whoever holds the lock now.
 *
 * <p>What the lease cannot do: tell a holder that its lease ran out. A holder that pauses longer
 * than its lease (a garbage collector stopping the world, a stalled VM) wakes believing it holds
 * the lock while another client holds it: only storage that checks the token can tell them apart.
 * A {@link LeaseKeeper}, when there is one, renews the lease while its holder's process runs;
 * {@link #suspendRenewal} is that process pausing, keeper and all.
 *
 * <p>There is no queue: a client that finds the lock taken asks again when the holder's lease
 * would run out, and every {@link #RECHECK_MILLIS} ms meanwhile, since a holder may release
 * sooner. The handle belongs to its client's thread, except {@link #renew}, which the keeper's
 * thread calls with its own connection.
 */
public final class LeaseLock implements LeaseKeeper.Leased {

    /** How long a client that found the lock taken waits at most before it asks again. */
    static final long RECHECK_MILLIS = 10;

    private static final LuaScript ACQUIRE = LuaScript.load(LeaseLock.class, "lua/lease/acquire.lua");
    private static final LuaScript RELEASE = LuaScript.load(LeaseLock.class, "lua/lease/release.lua");
    private static final LuaScript RENEW = LuaScript.load(LeaseLock.class, "lua/lease/renew.lua");

    private final SyncClient client;
    private final String name;
    /** The lock (its holder's owner id, expiring with the lease), then the token counter. */
    private final List<String> keys;
    private final String leaseMillis;
    /** Null when nobody renews leases. */
    private final LeaseKeeper keeper;
    /** What was left of the holder's lease when the last attempt found the lock taken, in ms. */
    private long leftOfTheirs;
    /** Whether this client believes it holds the lock: from taking it to releasing it. The client's thread only. */
    private boolean believesItHolds;

    LeaseLock(SyncClient client, String name, List<String> keys, Duration lease, LeaseKeeper keeper) {
        this.client = client;
        this.name = name;
        this.keys = List.copyOf(keys);
        this.leaseMillis = Long.toString(lease.toMillis());
        this.keeper = keeper;
    }

    public String name() {
        return name;
    }

    /** Takes the lock if nobody holds it: the new lease's fencing token, or 0 when another client holds it. */
    public long tryAcquire() {
        client.events().requested(name);
        return attempt(false);
    }

    /**
     * After {@link #tryAcquire} found the lock taken: asks again until it gets it, each time the
     * holder's lease would have run out (or sooner); its fencing token, or 0 when {@code
     * patience} ran out first.
     *
     * @throws InterruptedException when the run stops the wait
     */
    public long awaitTurn(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return 0;
            }
            Thread.sleep(Math.max(1, Math.min(Math.min(leftOfTheirs, RECHECK_MILLIS), left)));
            long token = attempt(true);
            if (token > 0) {
                return token;
            }
        }
    }

    /** Whether Redis names this client as the holder now: the check a careful client makes before it acts. */
    public boolean held() {
        return client.owner().equals(client.commands().get(keys.get(0)));
    }

    /**
     * Lets the lock go if this client still holds it; false (and reported as refused) when its
     * lease had run out, in which case nothing in Redis changes.
     */
    public boolean release() {
        client.events().released(name);
        believesItHolds = false;
        if (keeper != null) {
            keeper.drop(this);
        }
        if (RELEASE.runForLong(client.commands(), keys.subList(0, 1), List.of(client.owner())) == 0) {
            client.events().refused(name);
            return false;
        }
        return true;
    }

    /**
     * The client's whole process pauses (the world stops): its lease keeper stops renewing too,
     * until {@link #resumeRenewal}. A lock without a keeper is not renewed anyway.
     */
    public void suspendRenewal() {
        if (keeper != null) {
            keeper.drop(this);
        }
    }

    /** The process runs again: the keeper renews the lease again, if the client still believes it holds it. */
    public void resumeRenewal() {
        if (keeper != null && believesItHolds) {
            keeper.keep(this);
        }
    }

    @Override
    public boolean renew(Jedis keeperConnection) {
        return RENEW.runForLong(keeperConnection, keys.subList(0, 1), List.of(client.owner(), leaseMillis)) == 1;
    }

    @Override
    public void abandon() {
        if (keeper != null) {
            keeper.drop(this);
        }
    }

    @Override
    public boolean held(Jedis connection) {
        return client.owner().equals(connection.get(keys.get(0)));
    }

    /** Its lease ends now, if this client still holds the lock: the next client to ask gets it. */
    @Override
    public void runOut(Jedis connection) {
        RELEASE.runForLong(connection, keys.subList(0, 1), List.of(client.owner()));
    }

    /** Whose lease of which lock, as a failed renewal names it. */
    @Override
    public String toString() {
        return client.owner() + "'s " + name;
    }

    private long attempt(boolean waited) {
        List<Long> answer = ACQUIRE.runForLongs(client.commands(), keys, List.of(client.owner(), leaseMillis));
        long token = answer.get(0);
        if (token == 0) {
            leftOfTheirs = answer.get(1);
            return 0;
        }
        believesItHolds = true;
        if (keeper != null) {
            keeper.keep(this);
            client.leasing(this);
        }
        client.events().acquired(name, waited, SyncEvents.NO_CAUSE);
        return token;
    }
}
