package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import dev.racelab.engine.RunThreads;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Which runs on a Redis server are alive, so that the keys of a run whose RaceLab was killed do
 * not stay there for ever.
 *
 * <p>Every key of a run lies under {@code racelab:<run>:} ({@link KeySpace}). A run registers in
 * the sorted set {@value #REGISTRY}, scored by a deadline on the server's clock, before it creates
 * any key, and pushes the deadline ahead every {@link #RENEW_EVERY} while it lives (a periodic
 * task of the run, on a connection of its own). Closing, the run deletes its keys, then its entry.
 * A run whose deadline has passed was killed (or its process stood still for a whole {@link
 * #LIFETIME}): the next run that opens on that server, in any RaceLab, deletes its keys and its
 * entry ({@link #sweep}).
 *
 * <p>Made for a shared server, where several RaceLabs may run at once: only keys under {@code
 * racelab:<run>:} of a run whose registered deadline has passed are deleted, and each deletion
 * checks the deadline in the same script, so a run that renewed meanwhile keeps every key. A run
 * that never registered (an older RaceLab's) is never touched, nor is anything outside {@code
 * racelab:}.
 */
public final class LiveRuns implements AutoCloseable {

    /** The registry of live runs: run ids scored by their deadlines, in ms on the server's clock. */
    public static final String REGISTRY = Redis.KEY_PREFIX + "runs";
    /** How long a run counts as alive after it last renewed. */
    public static final Duration LIFETIME = Duration.ofSeconds(60);
    /** How often a live run renews: many times a lifetime, so a slow turn or two cost nothing. */
    static final Duration RENEW_EVERY = Duration.ofSeconds(5);

    /** How long a renewal waits for its reply: a silent server costs a turn, never the lifetime. */
    private static final int REPLY_TIMEOUT_MILLIS = 2_000;
    private static final int DEAD_RUNS_PER_SWEEP = 100;
    private static final int SCAN_BATCH = 500;
    /** The server clock's prelude; KEYS[1] of every script is the registry: run ids scored by deadline (ms, server clock). */
    private static final String CLOCK = "lua/clock.lua";
    private static final LuaScript RENEW = LuaScript.load(LiveRuns.class, CLOCK, "lua/runs/renew.lua");
    private static final LuaScript DEAD = LuaScript.load(LiveRuns.class, CLOCK, "lua/runs/dead.lua");
    private static final LuaScript FORGET_DEAD = LuaScript.load(LiveRuns.class, CLOCK, "lua/runs/forget-dead.lua");

    private final String runId;
    private final Jedis connection;
    private final RunThreads.Periodic renewal;

    /**
     * Registers the run of {@code space} now, before it has any key, and keeps it registered on a
     * thread from {@code threads} until {@link #close} or {@link #abandon}.
     */
    public LiveRuns(Redis redis, KeySpace space, RunThreads threads) {
        this.runId = space.runId();
        this.connection = redis.open(runId + ":alive", REPLY_TIMEOUT_MILLIS);
        try {
            renew();
            this.renewal = threads.every("alive-" + runId, RENEW_EVERY, this::renewIfAnswering);
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private void renew() {
        RENEW.run(connection, List.of(REGISTRY), List.of(runId, String.valueOf(LIFETIME.toMillis())));
    }

    /**
     * One renewal turn. A server that fails it is the run's business, which its workers meet and
     * report: the next turn tries again, well within the lifetime.
     */
    private void renewIfAnswering() {
        try {
            renew();
        } catch (JedisException e) {
            // Tried again next turn.
        }
    }

    /**
     * Deletes the keys of every run whose deadline has passed, and their entries, on {@code
     * jedis}; returns how many keys were deleted.
     */
    public static long sweep(Jedis jedis) {
        @SuppressWarnings("unchecked")
        List<String> dead = (List<String>) DEAD.run(jedis, List.of(REGISTRY),
                List.of(String.valueOf(DEAD_RUNS_PER_SWEEP)));
        long deleted = 0;
        for (String run : dead) {
            KeySpace space;
            try {
                space = new KeySpace(run);
            } catch (IllegalArgumentException notARunId) {
                continue;  // Not written by RaceLab: left alone.
            }
            deleted += forget(jedis, space);
        }
        return deleted;
    }

    /** Deletes a dead run's keys, batch by batch, then its entry; stops if the run turns out alive. */
    private static long forget(Jedis jedis, KeySpace space) {
        long deleted = 0;
        ScanParams match = new ScanParams().match(space.prefix() + "*").count(SCAN_BATCH);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = jedis.scan(cursor, match);
            if (!page.getResult().isEmpty()) {
                List<String> keys = new ArrayList<>(page.getResult().size() + 1);
                keys.add(REGISTRY);
                keys.addAll(page.getResult());
                long gone = FORGET_DEAD.runForLong(jedis, keys, List.of(space.runId()));
                if (gone < 0) {
                    return deleted;  // It renewed: alive after all, and its keys are its own.
                }
                deleted += gone;
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        FORGET_DEAD.run(jedis, List.of(REGISTRY), List.of(space.runId()));
        return deleted;
    }

    /** Stops renewing and removes the run's entry: for after its keys were deleted. */
    @Override
    public void close() {
        try {
            renewal.close();
            connection.zrem(REGISTRY, runId);
        } finally {
            connection.close();
        }
    }

    /**
     * Stops renewing and asks the server nothing: for a server that stopped answering. The run's
     * deadline then passes, and a later run deletes what it left.
     */
    public void abandon() {
        try {
            renewal.close();
        } finally {
            connection.close();
        }
    }
}
