package dev.racelab.classroom;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a class's machines talk, through its Redis and nothing else: three streams under the class's
 * keys, and a key per machine that says it is still there.
 *
 * <ul>
 *   <li>{@link #CONTROL}: the host to everyone: the run to prepare, when to go, pause, stop, the verdict;
 *   <li>{@link #ROLL}: everyone to the host: who joined, who is ready, who is done;
 *   <li>{@link #EVENTS}: the participants' workers' events, in batches, for the host's timeline;
 *   <li>{@code alive:<who>}: set every half second with a short expiry; gone, its machine is gone.
 * </ul>
 *
 * Every key expires ({@link ClassRoom#LIFETIME}; the alive keys within seconds): a class whose host was
 * killed leaves nothing for long. One thread uses a channel: each has a connection of its own.
 */
public final class ClassChannel implements AutoCloseable {

    public static final String CONTROL = "control";
    public static final String ROLL = "roll";
    public static final String EVENTS = "events";
    /** How long an alive key outlives its machine's last word. */
    public static final long ALIVE_MILLIS = 3_000;
    /** How often a machine says it is alive. */
    public static final long HEARTBEAT_MILLIS = 500;
    /** The longest any stream grows: far beyond a lesson, a bound against a runaway participant. */
    private static final long MAX_ENTRIES = 2_000_000;

    private final Jedis jedis;
    private final ClassCode code;

    public ClassChannel(Jedis jedis, ClassCode code) {
        this.jedis = jedis;
        this.code = code;
    }

    /** Adds an entry to stream {@code stream}, which expires {@link ClassRoom#LIFETIME} after. */
    public StreamEntryID post(String stream, Map<String, String> fields) {
        String key = code.key(stream);
        try (Pipeline p = jedis.pipelined()) {
            var id = p.xadd(key, XAddParams.xAddParams().maxLen(MAX_ENTRIES).approximateTrimming(), fields);
            // Each post sets it again: a stream lasts its lifetime after its last entry (EXPIRE's NX is Redis 7's).
            p.expire(key, ClassRoom.LIFETIME.toSeconds());
            p.sync();
            return id.get();
        }
    }

    /**
     * The entries of {@code stream} after {@code after}, waiting up to {@code blockMillis} for the
     * first (0: not at all); at most {@code count}.
     */
    public List<StreamEntry> read(String stream, StreamEntryID after, long blockMillis, int count) {
        XReadParams params = XReadParams.xReadParams().count(count);
        if (blockMillis > 0) {
            params.block((int) blockMillis);
        }
        List<Map.Entry<String, List<StreamEntry>>> read = jedis.xread(params, Map.of(code.key(stream), after));
        List<StreamEntry> entries = new ArrayList<>();
        if (read != null) {
            for (Map.Entry<String, List<StreamEntry>> e : read) {
                entries.addAll(e.getValue());
            }
        }
        return entries;
    }

    /** The last entry's id in {@code stream} now (0-0 for none): what a newcomer reads after. */
    public StreamEntryID last(String stream) {
        List<StreamEntry> last = jedis.xrevrange(code.key(stream), "+", "-", 1);
        return last.isEmpty() ? new StreamEntryID(0, 0) : last.get(0).getID();
    }

    /** Says that {@code who} is still here, for {@link #ALIVE_MILLIS}. */
    public void alive(String who) {
        jedis.psetex(code.key("alive:" + who), ALIVE_MILLIS, "1");
    }

    /** Which of {@code who} said they were here within {@link #ALIVE_MILLIS}, in order. */
    public List<Boolean> alive(List<String> who) {
        if (who.isEmpty()) {
            return List.of();
        }
        List<String> values = jedis.mget(who.stream().map(w -> code.key("alive:" + w)).toArray(String[]::new));
        return values.stream().map(v -> v != null).toList();
    }

    /** {@code who} is leaving: its alive key goes now. */
    public void gone(String who) {
        jedis.del(code.key("alive:" + who));
    }

    /** This machine's clock against the server's. */
    public ClassClock clock() {
        return ClassClock.measure(jedis);
    }

    /** {@link #clock()}, with a wall clock {@code wallSkewNanos} ahead of this machine's ({@link ClassClock#measure(Jedis, long)}). */
    public ClassClock clock(long wallSkewNanos) {
        return ClassClock.measure(jedis, wallSkewNanos);
    }

    @Override
    public void close() {
        try {
            jedis.close();
        } catch (redis.clients.jedis.exceptions.JedisException e) {
            // The server is gone already: nothing to close there.
        }
    }
}
