package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.util.List;

/**
 * The keys and channels of one run. Everything lives under {@code racelab:<runId>:}, so runs
 * sharing a server never meet, nothing outside RaceLab's prefix is ever touched, and cleaning up
 * is one {@code SCAN} over that prefix (never {@code KEYS} or {@code FLUSHDB}).
 *
 * <p>Names inside a run: a construct {@code fork-2} keeps its counter at {@code …:fork-2}, its
 * wait queue at {@code …:fork-2:queue} and its holders at {@code …:fork-2:holders}. A client's
 * wake-ups arrive on the channel {@code …:wake:<owner>}, where the owner id is the worker's name
 * and a nonce ({@code philosopher-3/5f1c}), so a worker that crashed and came back is a new owner.
 */
public final class KeySpace {

    private static final String WAKE = "wake:";
    private static final int SCAN_BATCH = 500;

    private final String runId;
    private final String prefix;

    public KeySpace(String runId) {
        if (!runId.matches("[A-Za-z0-9-]+")) {
            throw new IllegalArgumentException("a run id is letters, digits and '-': " + runId);
        }
        this.runId = runId;
        this.prefix = Redis.KEY_PREFIX + runId + ":";
    }

    public String runId() {
        return runId;
    }

    /** The key {@code name} of this run. */
    public String key(String name) {
        return prefix + name;
    }

    /** What every key and channel of this run begins with. */
    public String prefix() {
        return prefix;
    }

    /** What every wake-up channel of this run begins with; the owner id follows. */
    public String channelPrefix() {
        return prefix + WAKE;
    }

    /** The channel {@code owner} listens on. */
    public String channel(String owner) {
        return channelPrefix() + owner;
    }

    /**
     * The worker behind a wait-queue entry: an owner id ({@code client-2/5f1c}) or, in the
     * article's queues, a wake-up channel ending in one.
     */
    public static String workerOf(String entry) {
        int wake = entry.lastIndexOf(":" + WAKE);
        String owner = wake < 0 ? entry : entry.substring(wake + 1 + WAKE.length());
        int slash = owner.indexOf('/');
        return slash < 0 ? owner : owner.substring(0, slash);
    }

    /** Deletes every key of this run; returns how many there were. */
    public long forget(Jedis jedis) {
        long deleted = 0;
        ScanParams match = new ScanParams().match(prefix + "*").count(SCAN_BATCH);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = jedis.scan(cursor, match);
            List<String> keys = page.getResult();
            if (!keys.isEmpty()) {
                deleted += jedis.unlink(keys.toArray(String[]::new));
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return deleted;
    }
}
