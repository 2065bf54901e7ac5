package dev.racelab.classroom;

import redis.clients.jedis.Jedis;

import java.util.List;

/**
 * One machine's clock set against the class's Redis server's: the offset that turns this machine's
 * {@link System#nanoTime} into the server's time, estimated from the {@code TIME} reply that came
 * back quickest of several (its error is at most half that round trip). Every machine of a class
 * stamps its events in server time, so the host's timeline orders them by one clock.
 *
 * @param offsetNanos the server's time minus this machine's {@code nanoTime}
 * @param errorNanos  at most how far off the offset may be: half the quickest round trip
 * @param skewNanos   the server's time minus this machine's wall clock: what a participant's
 *                    timeline would be off by without this clock, shown beside its name
 */
public record ClassClock(long offsetNanos, long errorNanos, long skewNanos) {

    private static final int SAMPLES = 9;

    /** Measures this machine's clock against the server {@code jedis} talks to. */
    public static ClassClock measure(Jedis jedis) {
        return measure(jedis, 0);
    }

    /**
     * {@link #measure(Jedis)}, on a machine whose wall clock is {@code wallSkewNanos} ahead of this
     * one's: for a test or a benchmark that checks the estimate against a skew it injected.
     */
    public static ClassClock measure(Jedis jedis, long wallSkewNanos) {
        long bestRoundTrip = Long.MAX_VALUE;
        long offset = 0;
        long skew = 0;
        for (int i = 0; i < SAMPLES; i++) {
            long wallSent = System.currentTimeMillis() * 1_000_000L + wallSkewNanos;
            long sent = System.nanoTime();
            List<String> time = jedis.time();
            long back = System.nanoTime();
            long server = Long.parseLong(time.get(0)) * 1_000_000_000L + Long.parseLong(time.get(1)) * 1_000L;
            if (back - sent < bestRoundTrip) {
                bestRoundTrip = back - sent;
                offset = server - (sent + (back - sent) / 2);
                skew = server - (wallSent + (back - sent) / 2);
            }
        }
        return new ClassClock(offset, bestRoundTrip / 2, skew);
    }

    /** This machine's {@code nanoTime} {@code local}, in server time. */
    public long toServer(long local) {
        return local + offsetNanos;
    }

    /** Server time {@code server}, as this machine's {@code nanoTime}. */
    public long toLocal(long server) {
        return server - offsetNanos;
    }

    /** The server's time now, by this machine's clock. */
    public long serverNow() {
        return toServer(System.nanoTime());
    }
}
