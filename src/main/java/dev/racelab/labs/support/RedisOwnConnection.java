package dev.racelab.labs.support;

import dev.racelab.backend.Redis;
import dev.racelab.engine.RunThreads;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;

/**
 * Watches a connection the run keeps for itself and leaves idle while the workers work (the Redis
 * fixture's admin): Redis closes a killed client's connection without a word, so the run would
 * learn of it only when it next used it, at the judging. Every {@link #EVERY}, on a periodic task
 * of the run and a connection of its own ({@code racelab:<run>:watch}), it asks whether the
 * connection is still among the server's clients ({@code CLIENT LIST ID}); one that is gone is
 * thrown as a connection Redis broke, which ends the run naming the server, as a worker's broken
 * connection does. A server that does not let RaceLab list its clients (an ACL, a Redis older than
 * 6.2) is not watched: the run then learns of a lost admin connection when it uses it.
 */
final class RedisOwnConnection implements AutoCloseable {

    /** How soon a lost connection is known. */
    private static final Duration EVERY = Duration.ofMillis(250);
    private static final int REPLY_TIMEOUT_MILLIS = 10_000;

    private final Jedis watch;
    private final long id;
    private final String name;
    private final RunThreads.Periodic turns;
    /** Set on the watch's thread: the server will not list clients, or the loss was reported. */
    private volatile boolean done;
    /** Set by {@link #close}: a question the closing cut short is no loss to report. */
    private volatile boolean closing;

    /** Watches {@code watched}, called {@code name}, from now until {@link #close}. */
    RedisOwnConnection(Redis redis, String runId, Jedis watched, String name, RunThreads threads) {
        this.id = watched.clientId();
        this.name = name;
        this.watch = redis.open(runId + ":watch", REPLY_TIMEOUT_MILLIS);
        try {
            this.turns = threads.every("watch-" + runId, EVERY, this::stillThere);
        } catch (RuntimeException e) {
            watch.close();
            throw e;
        }
    }

    private void stillThere() {
        if (done || closing) {
            return;
        }
        String listed;
        try {
            listed = watch.clientList(id);
        } catch (JedisDataException refused) {
            done = true;
            return;
        } catch (JedisConnectionException cut) {
            if (closing) {
                return;
            }
            throw cut;
        }
        if (listed == null || listed.isBlank()) {
            done = true;
            throw new JedisConnectionException("the run's own connection " + name
                    + " is gone (killed, or closed by the server)");
        }
    }

    /**
     * Closes the watch's connection first, so that a question in flight to a server that stopped
     * answering ends now rather than at its reply bound, then its task.
     */
    @Override
    public void close() {
        closing = true;
        try {
            watch.close();
        } finally {
            turns.close();
        }
    }
}
