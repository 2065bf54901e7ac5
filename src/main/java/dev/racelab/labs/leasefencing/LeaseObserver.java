package dev.racelab.labs.leasefencing;

import dev.racelab.backend.Redis;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.KeySpace;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

import java.util.List;

/**
 * Redis's own view of the lease lock, on one server lane: who holds it (the worker named in the
 * lock's key), with which lease's token, and how much of the lease was left when the lane first
 * saw it ("lease #3 · 98 ms left"); a lease renewed since says so ("lease #3 · renewed"). When the key is gone (the
 * holder released it, or Redis let it expire) the lane says nobody holds it, whatever the worker
 * that held it believes. Records only what changed since the last read.
 *
 * <p>Threads: the run's observer thread polls and owns the connection, opened by the supervisor
 * before the workers start (or on the first poll); the supervisor closes it after that thread ended.
 */
final class LeaseObserver implements ServerObserver {

    /** Redis counts a lease's time left in whole milliseconds: an end later by less is the same end. */
    private static final long ROUNDING_NANOS = 1_000_000;

    private final Redis redis;
    private final Constructs constructs;
    private final String lock;
    private final String lane;
    /** Opened by {@link #connect} or the first poll; cut by {@link #abort} from another thread. */
    private volatile Jedis jedis;
    /** The lease the last read saw: its holder's owner id and token. */
    private String owner;
    private String token;
    /**
     * The latest its end can be, on the observer's clock: a read happened between the moment the
     * observer sent it and the moment the answer was back, so the end lies between those plus
     * the time left. A later read whose earliest possible end is past this one saw a renewal; a
     * busy machine delaying the observer between the two moments cannot fake one.
     */
    private long endsBy;
    /** What the lane says of it: "lease #3 · 98 ms left", "lease #3 · renewed". */
    private String words;
    private int holderActor = -1;

    LeaseObserver(Redis redis, Constructs constructs, String lock, String lane) {
        this.redis = redis;
        this.constructs = constructs;
        this.lock = lock;
        this.lane = lane;
    }

    @Override
    public List<String> lanes() {
        return List.of(lane);
    }

    @Override
    public void connect() {
        if (jedis == null) {
            jedis = redis.open(constructs.space().runId() + ":lease-observer", 5_000);
        }
    }

    @Override
    public void poll(LaneSink sink) {
        connect();
        // One transaction: holder, what is left of its lease, and its token, at one instant.
        long sent = System.nanoTime();
        Transaction t = jedis.multi();
        Response<String> holder = t.get(constructs.lockKey(lock));
        Response<Long> left = t.pttl(constructs.lockKey(lock));
        Response<String> latest = t.get(constructs.tokenKey(lock));
        t.exec();
        long back = System.nanoTime();
        String nowOwner = holder.get();
        if (nowOwner == null) {
            letGo(sink);
            return;
        }
        long leftNanos = Math.max(0, left.get()) * 1_000_000;
        String nowToken = String.valueOf(latest.get());
        boolean sameLease = nowOwner.equals(owner) && nowToken.equals(token);
        boolean renewed = sameLease && sent + leftNanos > endsBy + ROUNDING_NANOS;
        endsBy = sameLease && !renewed ? Math.min(endsBy, back + leftNanos) : back + leftNanos;
        if (sameLease && !renewed) {
            return;
        }
        String nowWords = "lease #" + nowToken + (renewed ? " · renewed" : " · " + left.get() + " ms left");
        int actor = sink.workerActor(KeySpace.workerOf(nowOwner));
        if (actor != holderActor) {
            letGo(sink);
        }
        if (actor >= 0 && !nowWords.equals(words)) {
            sink.record(0, EventKind.SERVER_HOLDS, nowWords, actor);
        }
        owner = nowOwner;
        token = nowToken;
        words = nowWords;
        holderActor = actor;
    }

    /** Nobody holds the lease now, as far as Redis is concerned. */
    private void letGo(LaneSink sink) {
        if (holderActor >= 0) {
            sink.record(0, EventKind.SERVER_HOLDS, null, holderActor);
        }
        owner = null;
        token = null;
        words = null;
        holderActor = -1;
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
