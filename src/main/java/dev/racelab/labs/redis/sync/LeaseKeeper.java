package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import dev.racelab.engine.RunThreads;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hardened constructs' watchdog: renews the lease of every permit a live client holds (or
 * has been granted and not yet noticed), every third of a lease, so a holder that is merely slow
 * keeps its permit while one that crashed or vanished loses it one lease after it stopped.
 *
 * <p>In a real deployment every process runs its own keeper; here the clients of a run are
 * threads of one process, so one keeper serves them all, and a client that {@linkplain
 * SyncClient#crash crashes} or {@linkplain SyncClient#vanish vanishes} simply stops being
 * renewed. Its renewal is a periodic task of the run's {@link RunThreads} ({@code
 * lease-keeper-<run>}), which alone uses the keeper's connection; whoever creates the keeper
 * closes it.
 *
 * <p>Failures: one handle's renewal never costs another its lease. A {@link JedisException} is
 * the server failing, which the labs expect and report themselves (a lease that ran out meanwhile
 * shows as a refused release): it is passed over and that handle is tried again next turn. Any
 * other exception is a defect: the turn still renews every other handle, then reports it through
 * the run's threads, which record it as a failure of the run; later turns go on.
 */
public final class LeaseKeeper implements AutoCloseable {

    /** A permit (held or granted) whose lease the keeper renews. */
    interface Leased {
        /** Renews on the keeper's connection; false when the lease was already taken back. */
        boolean renew(Jedis keeperConnection);

        /** Stops being renewed: its client failed or let go. */
        void abandon();

        /** Its lease runs out now, on {@code connection}: the time a schedule let pass was longer than a lease. */
        void runOut(Jedis connection);

        /** Whether Redis records its client as holding it (or granted it) now, asked on {@code connection}. */
        boolean held(Jedis connection);
    }

    private final Duration lease;
    private final Jedis connection;
    private final RunThreads.Periodic renewal;
    private final Set<Leased> kept = ConcurrentHashMap.newKeySet();

    /** Starts renewing; the renewal runs on a thread from {@code threads}. */
    public LeaseKeeper(Redis redis, KeySpace space, Duration lease, RunThreads threads) {
        if (lease.toMillis() < 30) {
            throw new IllegalArgumentException("a lease under 30 ms cannot be renewed in time: " + lease);
        }
        this.lease = lease;
        this.connection = redis.open(space.runId() + ":lease-keeper", (int) Math.max(1_000, lease.toMillis()));
        try {
            this.renewal = threads.every("lease-keeper-" + space.runId(), recheckEvery(), this::renewAll);
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
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

    /** One turn: renews every handle, whatever another's renewal threw; then throws what was not the server's. */
    private void renewAll() {
        RuntimeException defect = null;
        for (Leased handle : kept) {
            try {
                handle.renew(connection);
            } catch (JedisException e) {
                // The server failed: try again next turn. Leases not renewed meanwhile may run out; a
                // holder that lost its permit that way finds its release refused, which the labs report.
            } catch (RuntimeException e) {
                if (defect == null) {
                    defect = new IllegalStateException("renewing the lease of " + handle + " failed: " + e, e);
                } else {
                    defect.addSuppressed(e);
                }
            }
        }
        if (defect != null) {
            throw defect;
        }
    }

    /** Stops renewing (waiting for a turn under way to end), then closes the keeper's connection. */
    @Override
    public void close() {
        try {
            renewal.close();
        } finally {
            connection.close();
        }
    }
}
