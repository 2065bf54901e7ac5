package dev.racelab.labs.file;

import dev.racelab.engine.Printable;
import dev.racelab.backend.Redis;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;
import dev.racelab.labfile.BlockText;
import dev.racelab.labfile.LabFile;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The Redis keys a lab file names, as Redis holds them while the run goes, a server lane each:
 * {@code racelab:counter = 11}, {@code racelab:lock = 2} (who holds the lock, as the file writes
 * its holder). Only keys written out in full are read (not {@code racelab:lock:$worker}), the first
 * {@link #MOST} the file names, in one {@code MGET} a read: it changes nothing, and a {@code WATCH}
 * does not see it. A key that holds no string shows nothing; one that goes away leaves its lane
 * empty.
 */
final class RedisKeysObserver implements ServerObserver {

    static final int MOST = 4;
    private static final int TIMEOUT_MILLIS = 10_000;
    private static final int LONGEST_VALUE = 24;

    private final Redis redis;
    private final List<String> keys;
    private final List<String> onServer = new ArrayList<>();
    /** What the lane shows for each key now: its subject, or null. */
    private final String[] shown;
    private final Long[] numbers;
    private volatile Jedis connection;

    RedisKeysObserver(Redis redis, List<String> keys, FileSteps steps) {
        this.redis = redis;
        this.keys = List.copyOf(keys);
        for (String key : keys) {
            onServer.add(steps.prefix() + key.substring("racelab:".length()));
        }
        this.shown = new String[keys.size()];
        this.numbers = new Long[keys.size()];
    }

    /** The keys the file's Redis blocks name written out in full, in the order they first appear. */
    static List<String> keysOf(LabFile file) {
        Set<String> keys = new LinkedHashSet<>();
        for (LabFile.Block block : file.blocks()) {
            if (block.server() == LabFile.Server.REDIS) {
                BlockText.redisKeys(block.text()).stream().filter(k -> !k.contains("$")).forEach(keys::add);
            }
        }
        return keys.stream().limit(MOST).toList();
    }

    @Override
    public List<String> lanes() {
        return keys;
    }

    @Override
    public void connect() {
        if (connection == null) {
            connection = redis.open("keys", TIMEOUT_MILLIS);
        }
    }

    @Override
    public void poll(LaneSink sink) {
        connect();
        List<String> values;
        try {
            values = connection.mget(onServer.toArray(String[]::new));
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            return;
        }
        for (int i = 0; i < keys.size(); i++) {
            String value = values.get(i);
            String key = keys.get(i);
            Long number = number(value);
            String subject = value == null ? null : number != null ? key
                    : key + " = " + Printable.excerpt(value, LONGEST_VALUE);
            if (java.util.Objects.equals(subject, shown[i]) && java.util.Objects.equals(number, numbers[i])) {
                continue;
            }
            if (shown[i] != null && !shown[i].equals(subject)) {
                // A word is shown under a name of its own: the one before it goes first.
                sink.record(i, EventKind.SERVER_VALUE, shown[i], GONE);
            }
            if (subject != null) {
                sink.record(i, EventKind.SERVER_VALUE, subject, number != null ? number : NAME_ONLY);
            }
            numbers[i] = number;
            shown[i] = subject;
        }
    }

    private static Long number(String value) {
        if (value == null || !value.matches("-?[0-9]{1,18}")) {
            return null;
        }
        return Long.parseLong(value);
    }

    @Override
    public void abort() {
        Jedis open = connection;
        if (open != null) {
            open.getConnection().close();
        }
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
        }
    }
}
