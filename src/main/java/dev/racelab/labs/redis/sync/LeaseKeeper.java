package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The hardened constructs' watchdog: renews the lease of every permit a live client holds (or
 * has been granted and not yet noticed), every third of a lease, so a holder that is merely slow
 * keeps its permit while one that crashed or vanished loses it one lease after it stopped.
 *
 * <p>In a real deployment every process runs its own keeper; here the clients of a run are
 * threads of one process, so one keeper serves them all, and a client that {@linkplain
 * SyncClient#crash crashes} or {@linkplain SyncClient#vanish vanishes} simply stops being
 * renewed. Its single thread ({@code lease-keeper-<run>}) owns its own connection; whoever
 * creates the keeper closes it.
 */
public final class LeaseKeeper implements AutoCloseable {

    /** A permit (held or granted) whose lease the keeper renews. */
    interface Leased {
        /** Renews on the keeper's connection; false when the lease was already taken back. */
        boolean renew(Jedis keeperConnection);

        /** Stops being renewed: its client failed or let go. */
        void abandon();
    }

    private final Duration lease;
    private final Jedis connection;
    private final ScheduledExecutorService thread;
    private final Set<Leased> kept = ConcurrentHashMap.newKeySet();

    public LeaseKeeper(Redis redis, KeySpace space, Duration lease) {
        if (lease.toMillis() < 30) {
            throw new IllegalArgumentException("a lease under 30 ms cannot be renewed in time: " + lease);
        }
        this.lease = lease;
        this.connection = redis.open(space.runId() + ":lease-keeper", (int) Math.max(1_000, lease.toMillis()));
        this.thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "lease-keeper-" + space.runId());
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(10, lease.toMillis() / 3);
        thread.scheduleWithFixedDelay(this::renewAll, every, every, TimeUnit.MILLISECONDS);
    }

    public Duration lease() {
        return lease;
    }

    /** How often a waiter looks for a grant it was not told about: as often as leases are renewed. */
    public Duration recheckEvery() {
        return Duration.ofMillis(Math.max(10, lease.toMillis() / 3));
    }

    void keep(Leased handle) {
        kept.add(handle);
    }

    void drop(Leased handle) {
        kept.remove(handle);
    }

    private void renewAll() {
        for (Leased handle : kept) {
            try {
                handle.renew(connection);
            } catch (JedisException e) {
                // Keep the task alive (an exception would cancel every later renewal) and try again
                // next time. Leases not renewed meanwhile may run out; a holder that lost its permit
                // that way finds its release refused, which the labs report.
            }
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connection.close();
        }
    }
}
