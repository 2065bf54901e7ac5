package dev.racelab.labs.redisfailover;

import dev.racelab.backend.RedisAddress;
import dev.racelab.backend.SentinelTopology;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The failover as the servers tell it, on server lanes: which server the Sentinels name primary
 * (and how many of the three do), each data server's role and replication offset (or that it is
 * down or does not answer), who holds the lock there, and the bytes the relays hold back from the
 * replica. Records only what changed.
 */
final class TopologyObserver implements ServerObserver {

    static final String SENTINELS = "Sentinels";
    static final String RELAYS = "relays";
    /** How long a read waits for a server: a frozen one must not hold the lanes up for long. */
    private static final int READ_MILLIS = 250;

    private final SentinelTopology topology;
    private final String lockKey;
    private final List<String> lanes = new ArrayList<>();
    private final Map<String, Long> shown = new HashMap<>();
    private final Map<Integer, String> roleShown = new HashMap<>();
    /** What each server's lane says of the lock now ("lock held by client-1"), or nothing. */
    private final Map<Integer, String> lockShown = new HashMap<>();
    private String primaryShown;
    /** One connection to each server (through its relay), kept; null until made, or after it failed. */
    private final Jedis[] toServers;

    TopologyObserver(SentinelTopology topology, String lockKey) {
        this.topology = topology;
        this.lockKey = lockKey;
        lanes.add(SENTINELS);
        lanes.addAll(topology.serverNames());
        lanes.add(RELAYS);
        toServers = new Jedis[topology.serverNames().size()];
    }

    @Override
    public List<String> lanes() {
        return lanes;
    }

    @Override
    public void poll(LaneSink sink) {
        List<Integer> view = topology.sentinelsView();
        int named = view.stream().filter(i -> i >= 0).findFirst().orElse(-1);
        if (named >= 0) {
            String words = "Sentinels naming " + topology.serverNames().get(named) + " primary";
            if (primaryShown != null && !primaryShown.equals(words)) {
                value(sink, 0, primaryShown, GONE);
            }
            primaryShown = words;
            value(sink, 0, words, view.stream().filter(i -> i == named).count());
        }
        for (int i = 0; i < topology.serverNames().size(); i++) {
            server(sink, i);
        }
        value(sink, lanes.size() - 1, "bytes held", topology.heldBytes());
    }

    private void server(LaneSink sink, int i) {
        int lane = i + 1;
        String role;
        long offset;
        String holder;
        try {
            Jedis jedis = connection(toServers, i, topology.address(i));
            String info = jedis.info("replication");
            role = info.contains("role:master") ? "primary, offset" : "replica, offset";
            offset = field(info, "master_repl_offset");
            holder = jedis.get(lockKey);
        } catch (JedisException e) {
            drop(toServers, i);
            role = topology.alive(i) ? "no answer" : "down";
            offset = NAME_ONLY;
            holder = null;
        }
        String before = roleShown.put(i, role);
        if (before != null && !before.equals(role)) {
            value(sink, lane, before, GONE);
        }
        value(sink, lane, role, offset);
        String lock = holder == null ? null : "lock held by " + holder;
        String lockBefore = lockShown.get(i);
        if (lockBefore != null && !lockBefore.equals(lock)) {
            value(sink, lane, lockBefore, GONE);
        }
        if (lock != null) {
            value(sink, lane, lock, NAME_ONLY);
            lockShown.put(i, lock);
        } else {
            lockShown.remove(i);
        }
    }

    private static Jedis connection(Jedis[] kept, int i, RedisAddress at) {
        if (kept[i] == null) {
            kept[i] = new Jedis(at.host(), at.port(), READ_MILLIS);
        }
        return kept[i];
    }

    private static void drop(Jedis[] kept, int i) {
        if (kept[i] != null) {
            kept[i].close();
            kept[i] = null;
        }
    }

    @Override
    public void abort() {
        for (Jedis jedis : toServers.clone()) {
            if (jedis != null) {
                try {
                    jedis.disconnect();
                } catch (JedisException ignored) {
                    // Cut already.
                }
            }
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < toServers.length; i++) {
            drop(toServers, i);
        }
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).strip());
            }
        }
        return 0;
    }

    private void value(LaneSink sink, int lane, String name, long value) {
        String key = lane + ":" + name;
        Long last = shown.get(key);
        if (last == null || last != value) {
            if (value == GONE) {
                shown.remove(key);
            } else {
                shown.put(key, value);
            }
            sink.record(lane, EventKind.SERVER_VALUE, name, value);
        }
    }
}
