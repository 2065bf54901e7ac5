package dev.racelab.labs.redis.sync;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ZAddParams;

import java.time.Duration;
import java.util.List;

/**
 * The article's semaphore with what it gets wrong put right, one script per operation:
 *
 * <ul>
 *   <li><b>Owners.</b> Every permit is recorded against its holder's owner id, so only a holder
 *       can release, and only once; and whoever looks at Redis can tell who holds what.</li>
 *   <li><b>Leases.</b> A permit is held for a lease that the {@link LeaseKeeper} renews while
 *       the holder lives. A holder that crashes or vanishes stops renewing; one lease later the
 *       next script that runs takes the permit back and hands it on.</li>
 *   <li><b>Grants, not messages.</b> A release hands the permit to the oldest waiter by recording
 *       it as the holder, then publishes a wake-up that only says "look". A waiter that misses the
 *       wake-up finds its grant when it looks again (every third of a lease); one whose wake-up
 *       reaches no subscriber is skipped at once; one that gives up leaves the queue and passes
 *       on a grant it got meanwhile.</li>
 * </ul>
 *
 * <p>The handle belongs to its client's thread, except {@link #renew}, which the keeper's thread
 * calls with its own connection; the fields it reads are immutable. A holder whose lease was
 * taken back (it was frozen longer than a lease) learns it when its release is refused.
 */
public final class HardenedSemaphore extends QueuedSemaphore implements LeaseKeeper.Leased {

    private static final String CLOCK = "lua/clock.lua";
    private static final String COMMON = "lua/hardened/common.lua";
    private static final LuaScript ACQUIRE = load("lua/hardened/acquire.lua");
    private static final LuaScript TRY = load("lua/hardened/try.lua");
    private static final LuaScript RELEASE = load("lua/hardened/release.lua");
    private static final LuaScript LEAVE = load("lua/hardened/leave.lua");
    private static final LuaScript RENEW = load("lua/hardened/renew.lua");

    private final LeaseKeeper keeper;
    private final String leaseMillis;

    HardenedSemaphore(SyncClient client, String name, List<String> keys, LeaseKeeper keeper) {
        super(client, name, keys);
        this.keeper = keeper;
        this.leaseMillis = Long.toString(keeper.lease().toMillis());
    }

    private static LuaScript load(String script) {
        return LuaScript.load(HardenedSemaphore.class, CLOCK, COMMON, script);
    }

    /** From the moment it may be granted a permit, the client's lease is renewed while it lives. */
    @Override
    boolean takeOrQueue() {
        startRenewing();
        return take(ACQUIRE);
    }

    /**
     * Waits for the wake-up, but never only for it: every third of a lease it looks at Redis, so a
     * grant whose wake-up it missed, or a permit taken back from a dead holder, still reaches it.
     */
    @Override
    public boolean awaitTurn(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        long recheck = keeper.recheckEvery().toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String message = mailbox.await(Math.max(0, Math.min(left, recheck)));
            if (take(ACQUIRE)) {
                return woken(message);
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
        }
    }

    /** Takes a permit if one is free now; never waits and never joins the queue. */
    public boolean tryAcquire() {
        client.reportUnread();
        startRenewing();
        if (take(TRY)) {
            client.events().acquired(name, false, SyncEvents.NO_CAUSE);
            return true;
        }
        keeper.drop(this);
        client.notLeasing(this);
        return false;
    }

    @Override
    public void stopWaiting() {
        LEAVE.run(client.commands(), keys, args(SyncEvents.NO_CAUSE));
        mailbox.disarm();
        keeper.drop(this);
        client.notLeasing(this);
        client.events().stoppedWaiting(name);
    }

    @Override
    public boolean release() {
        long cause = client.events().released(name);
        keeper.drop(this);
        client.notLeasing(this);
        if (RELEASE.runForLong(client.commands(), keys, args(cause)) < 0) {
            client.events().refused(name);
            return false;
        }
        return true;
    }

    @Override
    public boolean renew(Jedis keeperConnection) {
        return RENEW.runForLong(keeperConnection, keys, args(SyncEvents.NO_CAUSE)) == 1;
    }

    @Override
    public void abandon() {
        keeper.drop(this);
    }

    @Override
    public boolean held(Jedis connection) {
        return connection.zscore(keys.get(2), client.owner()) != null;
    }

    /** Its holder's lease ends now: the next script that runs takes the permit back. */
    @Override
    public void runOut(Jedis connection) {
        connection.zadd(keys.get(2), 0, client.owner(), ZAddParams.zAddParams().xx());
    }

    /** Whose permit of which construct, as a failed renewal names it. */
    @Override
    public String toString() {
        return client.owner() + "'s " + name;
    }

    private void startRenewing() {
        keeper.keep(this);
        client.leasing(this);
    }

    private boolean take(LuaScript script) {
        List<Long> answer = script.runForLongs(client.commands(), keys, args(SyncEvents.NO_CAUSE));
        if (answer.get(1) > 0) {
            client.events().reclaimed(name, answer.get(1));
        }
        return answer.get(0) == 1;
    }

    private List<String> args(long cause) {
        return List.of(client.owner(), leaseMillis, client.space().channelPrefix(), WakeUps.message(name, cause));
    }
}
