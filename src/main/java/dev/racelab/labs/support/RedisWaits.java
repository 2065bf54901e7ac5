package dev.racelab.labs.support;

import dev.racelab.backend.Redis;
import dev.racelab.engine.ServerWaits;
import dev.racelab.labs.redis.sync.KeySpace;
import dev.racelab.labs.redis.sync.SyncClient;
import redis.clients.jedis.Jedis;

import java.util.Collection;
import java.util.Set;

/**
 * What Redis says of a scheduled run's waits ({@link ServerWaits}). Its workers block on no call:
 * they wait for wake-ups, and say so themselves; Redis is asked only to pass on every wake-up on
 * its way before the schedule takes a waiter for one that nothing ends, and, when the schedule
 * lets time pass, the leases a crash or a freeze left run out at once.
 *
 * <p>Threads: the run's schedule thread asks; the fixture closes, on the run's thread, perhaps
 * while the schedule thread is still asking. The connection ({@code racelab:<run>:schedule}),
 * opened on first use and never after closing, is guarded by {@code this}.
 */
final class RedisWaits implements ServerWaits, AutoCloseable {

    private static final int TIMEOUT_MILLIS = 10_000;

    private final Redis redis;
    private final KeySpace space;
    private final Set<SyncClient> clients;
    private Jedis connection;
    private boolean closed;

    RedisWaits(Redis redis, KeySpace space, Set<SyncClient> clients) {
        this.redis = redis;
        this.space = space;
        this.clients = clients;
    }

    @Override
    public Set<String> waiting(Collection<String> workers) {
        return Set.of();
    }

    @Override
    public synchronized void settlePushed(Collection<String> workers) throws InterruptedException {
        for (SyncClient client : clients) {
            if (workers.contains(client.name())) {
                client.settle(connection());
            }
        }
    }

    @Override
    public synchronized boolean timeMatters() {
        for (SyncClient client : clients) {
            if (client.leftLeases() && client.leasesRunningOut(connection())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public synchronized void letTimePass() {
        for (SyncClient client : clients) {
            if (client.leftLeases()) {
                client.runOutLeases(connection());
            }
        }
    }

    private Jedis connection() {
        if (closed) {
            throw new IllegalStateException("the run's Redis fixture is closed: its schedule asks no more");
        }
        if (connection == null) {
            connection = redis.open(space.runId() + ":schedule", TIMEOUT_MILLIS);
        }
        return connection;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (connection != null) {
            connection.close();
        }
    }
}
