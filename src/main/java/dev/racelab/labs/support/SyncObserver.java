package dev.racelab.labs.support;

import dev.racelab.backend.Redis;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.KeySpace;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.Response;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Redis's own view of a run's constructs, on one server lane: each construct's counter of free
 * permits, who waits in its queue (in order) and, for the hardened constructs, who holds it; and
 * any plain values the lab keeps in Redis (a monitor's reader count). Records only what changed
 * since the last poll.
 *
 * <p>Threads: the run's observer thread polls and owns the connection, opened by the supervisor
 * before the workers start (or on the first poll); the supervisor closes it after that thread has
 * ended.
 */
public final class SyncObserver implements ServerObserver {

    /** A value kept in a Redis key, shown as {@code label}. */
    public record Value(String label, String key) {
    }

    private final Redis redis;
    private final Constructs constructs;
    private final String lane;
    private final List<String> semaphores;
    private final List<Value> values;
    private final Map<String, Long> lastValues = new HashMap<>();
    private final Map<String, String> lastWaits = new HashMap<>();
    private final Map<String, String> lastHolds = new HashMap<>();
    /** Opened by {@link #connect} or the first poll; cut by {@link #abort} from another thread. */
    private volatile Jedis jedis;

    /**
     * @param semaphores the semaphores and mutexes to watch, by name
     * @param values     plain values to watch
     */
    public SyncObserver(Redis redis, Constructs constructs, String lane, List<String> semaphores, List<Value> values) {
        this.redis = redis;
        this.constructs = constructs;
        this.lane = lane;
        this.semaphores = List.copyOf(semaphores);
        this.values = List.copyOf(values);
    }

    @Override
    public List<String> lanes() {
        return List.of(lane);
    }

    @Override
    public void connect() {
        if (jedis == null) {
            jedis = redis.open(constructs.space().runId() + ":observer", 5_000);
        }
    }

    @Override
    public void poll(LaneSink sink) {
        connect();
        boolean hardened = constructs.variant() == Constructs.Variant.HARDENED;
        // One transaction: the counters, queues and holders are read at one instant, so a grant
        // between two reads never shows a worker both holding and waiting.
        Transaction p = jedis.multi();
        List<Response<String>> counters = new ArrayList<>();
        List<Response<List<String>>> queues = new ArrayList<>();
        List<Response<List<String>>> holders = new ArrayList<>();
        for (String name : semaphores) {
            counters.add(p.get(constructs.counterKey(name)));
            queues.add(p.lrange(constructs.queueKey(name), 0, -1));
            holders.add(hardened ? p.zrange(constructs.holdersKey(name), 0, -1) : null);
        }
        List<Response<String>> plain = new ArrayList<>();
        values.forEach(v -> plain.add(p.get(v.key())));
        p.exec();

        Map<String, String> waits = new LinkedHashMap<>();
        Map<String, List<String>> holds = new LinkedHashMap<>();
        for (int i = 0; i < semaphores.size(); i++) {
            String name = semaphores.get(i);
            value(sink, name + " free", counters.get(i).get());
            List<String> holding = new ArrayList<>();
            if (hardened) {
                for (String owner : holders.get(i).get()) {
                    holding.add(KeySpace.workerOf(owner));
                    holds.computeIfAbsent(KeySpace.workerOf(owner), w -> new ArrayList<>()).add(name);
                }
            }
            // A worker granted a permit no longer waits for it, though its queue entry may remain
            // until it wakes and takes it.
            List<String> queue = new ArrayList<>(constructs.waitingInOrder(queues.get(i).get()));
            queue.removeAll(holding);
            for (int place = 0; place < queue.size(); place++) {
                waits.putIfAbsent(queue.get(place), "for " + name + ", place " + (place + 1) + " in its queue");
            }
        }
        for (int i = 0; i < values.size(); i++) {
            value(sink, values.get(i).label(), plain.get(i).get());
        }
        report(sink, EventKind.SERVER_WAITS, lastWaits, waits);
        Map<String, String> holding = new LinkedHashMap<>();
        holds.forEach((worker, names) -> holding.put(worker, String.join(", ", names)));
        report(sink, EventKind.SERVER_HOLDS, lastHolds, holding);
    }

    private void value(LaneSink sink, String label, String text) {
        if (text == null) {
            return;
        }
        long value = Long.parseLong(text);
        Long before = lastValues.put(label, value);
        if (before == null || before != value) {
            sink.record(0, EventKind.SERVER_VALUE, label, value);
        }
    }

    /** Records each worker whose entry changed, and a null subject for those that dropped out. */
    private static void report(LaneSink sink, EventKind kind, Map<String, String> last, Map<String, String> now) {
        for (Map.Entry<String, String> entry : now.entrySet()) {
            if (!Objects.equals(last.get(entry.getKey()), entry.getValue())) {
                int actor = sink.workerActor(entry.getKey());
                if (actor >= 0) {
                    sink.record(0, kind, entry.getValue(), actor);
                }
            }
        }
        for (String worker : last.keySet()) {
            if (!now.containsKey(worker)) {
                int actor = sink.workerActor(worker);
                if (actor >= 0) {
                    sink.record(0, kind, null, actor);
                }
            }
        }
        last.clear();
        last.putAll(now);
    }

    @Override
    public void abort() {
        Jedis reading = jedis;
        if (reading != null) {
            reading.disconnect();
        }
    }

    @Override
    public void close() {
        if (jedis != null) {
            jedis.close();
        }
    }
}
