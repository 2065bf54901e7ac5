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
 * (and how many of the three do), each data server's role and replication offset (or how long it
 * has not answered), who holds the lock on it, and the bytes the relays hold back from the replica.
 * Records only what changed.
 */
final class TopologyObserver implements ServerObserver {

    static final String SENTINELS = "Sentinels";
    static final String RELAYS = "replication relay";
    /** How long a read waits for a server: a frozen one must not hold the lanes up. */
    private static final int READ_MILLIS = 100;

    private final SentinelTopology topology;
    private final String lockKey;
    private final List<String> lanes = new ArrayList<>();
    private final Map<String, Long> shown = new HashMap<>();
    private final Map<Integer, String> roleShown = new HashMap<>();
    private final Map<Integer, Integer> holderShown = new HashMap<>();
    private final Map<Integer, Long> silentSince = new HashMap<>();
    private String primaryShown;

    TopologyObserver(SentinelTopology topology, String lockKey) {
        this.topology = topology;
        this.lockKey = lockKey;
        lanes.add(SENTINELS);
        lanes.addAll(topology.serverNames());
        lanes.add(RELAYS);
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
            String words = "name " + topology.serverNames().get(named) + " primary";
            if (primaryShown != null && !primaryShown.equals(words)) {
                value(sink, 0, primaryShown, GONE);
            }
            primaryShown = words;
            value(sink, 0, words, view.stream().filter(i -> i == named).count());
        }
        for (int i = 0; i < topology.serverNames().size(); i++) {
            server(sink, i);
        }
        value(sink, lanes.size() - 1, "held bytes", topology.heldBytes());
    }

    private void server(LaneSink sink, int i) {
        int lane = i + 1;
        String role;
        long offset;
        String holder;
        RedisAddress at = topology.address(i);
        try (Jedis jedis = new Jedis(at.host(), at.port(), READ_MILLIS)) {
            String info = jedis.info("replication");
            role = info.contains("role:master") ? "primary, offset" : "replica, offset";
            offset = field(info, "master_repl_offset");
            holder = jedis.get(lockKey);
            silentSince.remove(i);
        } catch (JedisException e) {
            long since = silentSince.computeIfAbsent(i, k -> System.nanoTime());
            role = topology.alive(i) ? "no answer, ms" : "down, ms";
            offset = (System.nanoTime() - since) / 1_000_000;
            holder = null;
        }
        String before = roleShown.put(i, role);
        if (before != null && !before.equals(role)) {
            value(sink, lane, before, GONE);
        }
        value(sink, lane, role, offset);
        int actor = holder == null ? -1 : sink.workerActor(holder);
        Integer was = holderShown.getOrDefault(i, -1);
        if (actor != was) {
            if (was >= 0) {
                sink.record(lane, EventKind.SERVER_HOLDS, null, was);
            }
            if (actor >= 0) {
                sink.record(lane, EventKind.SERVER_HOLDS, "the lock", actor);
            }
            holderShown.put(i, actor);
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
