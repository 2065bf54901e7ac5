package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import dev.racelab.engine.PushedWait;
import dev.racelab.engine.RunThreads;
import dev.racelab.engine.WorkerContext;
import redis.clients.jedis.Jedis;

import java.util.Set;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One user of the constructs, as one process of the article is: a command connection, a
 * dedicated subscriber connection with its thread ({@link WakeUps}), and an owner id.
 *
 * <p>A client is owned by one thread (a worker), which uses its constructs; the subscriber thread
 * only fills mailboxes. The client can also be made to fail the ways a process fails:
 * {@link #crash} (the process dies and the server notices: its connections close) and
 * {@link #vanish} (the process stops for good but its connections stay open, as when its host
 * freezes or is cut off). Either way it stops renewing leases.
 *
 * <p>{@link #abort} may be called from any thread to end a wait; {@link #close} closes whatever
 * is still open and is idempotent.
 */
public final class SyncClient implements AutoCloseable {

    public enum Health { LIVE, CRASHED, VANISHED, CLOSED }

    private static final int COMMAND_TIMEOUT_MILLIS = 10_000;
    private static final long SERVER_NOTICE_MILLIS = 2_000;

    private final String name;
    private final String owner;
    private final KeySpace space;
    private final SyncEvents events;
    private final Jedis commands;
    private final WakeUps wakeUps;
    /** Handles whose leases the keeper renews; they let go of them when the client fails. */
    private final Set<LeaseKeeper.Leased> leased = ConcurrentHashMap.newKeySet();
    /** Leases a crash or a freeze left to run out, which a schedule letting time pass ends at once. */
    private final Set<LeaseKeeper.Leased> abandoned = ConcurrentHashMap.newKeySet();
    private volatile Health health = Health.LIVE;

    private SyncClient(String name, KeySpace space, SyncEvents events, Jedis commands, WakeUps wakeUps, String owner) {
        this.name = name;
        this.space = space;
        this.events = events;
        this.commands = commands;
        this.wakeUps = wakeUps;
        this.owner = owner;
    }

    /**
     * Opens a client called {@code name} (a worker's name): its connections are named
     * {@code racelab:<run>:<name>} and {@code racelab:<run>:<name>:wake-ups}, and its subscriber
     * thread, {@code <name>-wake-ups-<run>}, comes from {@code threads}.
     */
    public static SyncClient open(Redis redis, KeySpace space, String name, SyncEvents events, RunThreads threads) {
        return open(redis, space, name, events, threads, PushedWait.FREE);
    }

    /**
     * As {@link #open(Redis, KeySpace, String, SyncEvents, RunThreads)}, for a worker whose waits
     * for wake-ups are {@code pushed}: places a schedule sees ({@link WorkerContext#pushedWait}).
     */
    public static SyncClient open(Redis redis, KeySpace space, String name, SyncEvents events, RunThreads threads,
                                  PushedWait pushed) {
        String owner = name + "/" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        String connection = space.runId() + ":" + name;
        Jedis commands = redis.open(connection, COMMAND_TIMEOUT_MILLIS);
        try {
            WakeUps wakeUps = WakeUps.open(redis, connection + ":wake-ups", space.channel(owner), threads,
                    name + "-wake-ups-" + space.runId(), pushed);
            return new SyncClient(name, space, events, commands, wakeUps, owner);
        } catch (RuntimeException e) {
            commands.close();
            throw e;
        }
    }

    public String name() {
        return name;
    }

    /** The id the hardened constructs record as holder and waiter: the name and a nonce. */
    public String owner() {
        return owner;
    }

    public KeySpace space() {
        return space;
    }

    public Health health() {
        return health;
    }

    SyncEvents events() {
        return events;
    }

    /**
     * The client's command connection, for the constructs and for the work its owner does between
     * them (a critical section's reads and writes). Only the owning thread may use it.
     */
    public Jedis commands() {
        if (health != Health.LIVE) {
            throw new IllegalStateException(name + " has " + health.name().toLowerCase() + " and cannot act");
        }
        return commands;
    }

    Mailbox mailbox(String construct) {
        return wakeUps.mailbox(construct);
    }

    void leasing(LeaseKeeper.Leased handle) {
        leased.add(handle);
    }

    /** The handle's permit went back, or it left the queue: nothing of it is left to renew. */
    void notLeasing(LeaseKeeper.Leased handle) {
        leased.remove(handle);
    }

    /**
     * Reports wake-ups that reached this client while it was not waiting for them, through
     * {@link SyncEvents#unread}; call it on the client's thread.
     */
    public void reportUnread() {
        for (Map.Entry<String, Mailbox> box : wakeUps.mailboxes().entrySet()) {
            int n = box.getValue().takeUnread();
            if (n > 0) {
                events.unread(box.getKey(), n);
            }
        }
    }

    /** Wake-ups that arrived while the client was waiting and were never taken (it vanished). */
    public int pendingWakeUps() {
        return wakeUps.mailboxes().values().stream().mapToInt(Mailbox::pending).sum();
    }

    /**
     * The process dies: its leases are no longer renewed, its connections close, and this returns
     * once the server has noticed (nobody is subscribed to its channel any more), so a wake-up
     * sent after this reaches nobody, deterministically.
     */
    public void crash() {
        abandon();
        health = Health.CRASHED;
        wakeUps.close();
        long deadline = System.nanoTime() + SERVER_NOTICE_MILLIS * 1_000_000;
        try {
            while (commands.pubsubNumSub(wakeUps.channel()).getOrDefault(wakeUps.channel(), 0L) > 0
                    && System.nanoTime() < deadline) {
                LockSupport.parkNanos(200_000);
            }
        } finally {
            commands.close();
        }
    }

    /**
     * The process stops for good without its connections closing: it stays subscribed, so
     * wake-ups still reach it (PUBLISH counts it), but it never acts on them.
     */
    public void vanish() {
        abandon();
        health = Health.VANISHED;
    }

    /** Its leases are no longer renewed and will run out. */
    private void abandon() {
        abandoned.addAll(leased);
        stopRenewing();
    }

    /**
     * Returns once every wake-up published to this client before now has reached its mailbox
     * ({@link WakeUps#settle}); {@code publisher} is a connection of the caller's own.
     */
    public void settle(Jedis publisher) throws InterruptedException {
        if (health == Health.LIVE) {
            wakeUps.settle(publisher);
        }
    }

    /** Whether this client crashed or froze with leases nobody renews any more (asked of nothing but itself). */
    public boolean leftLeases() {
        return !abandoned.isEmpty();
    }

    /**
     * Whether Redis records this crashed or frozen client as holding something whose lease nobody
     * renews (a permit it held, or one granted to it since, a frozen client still hearing its
     * wake-ups): asked on {@code connection}, the caller's own.
     */
    public boolean leasesRunningOut(Jedis connection) {
        for (LeaseKeeper.Leased handle : abandoned) {
            if (handle.held(connection)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The time a schedule let pass ran out the leases this client's crash or freeze left: what it
     * holds now ends, on {@code connection} (the caller's own), for the next script to take back.
     * Asked again each time, since a frozen client can still be granted a permit.
     */
    public void runOutLeases(Jedis connection) {
        for (LeaseKeeper.Leased handle : abandoned) {
            handle.runOut(connection);
        }
    }

    private void stopRenewing() {
        leased.forEach(LeaseKeeper.Leased::abandon);
        leased.clear();
    }

    /** Ends any wait for a wake-up now, from any thread: the run is stopping. */
    public void abort() {
        wakeUps.breakAll("the run was stopped");
        // A command waiting for a reply that may never come (a server gone silent) returns now.
        commands.disconnect();
    }

    @Override
    public void close() {
        if (health == Health.CLOSED) {
            return;
        }
        stopRenewing();
        health = Health.CLOSED;
        try {
            wakeUps.close();
        } finally {
            commands.close();
        }
    }

    @Override
    public String toString() {
        return owner;
    }
}
