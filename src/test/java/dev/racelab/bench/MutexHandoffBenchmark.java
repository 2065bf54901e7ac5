package dev.racelab.bench;

import dev.racelab.backend.Redis;
import dev.racelab.backend.RedisAddress;
import dev.racelab.engine.RunThreads;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.KeySpace;
import dev.racelab.labs.redis.sync.LeaseKeeper;
import dev.racelab.labs.redis.sync.Semaphore;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.redis.sync.SyncEvents;
import dev.racelab.support.TestServers;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Mutex hand-off latency: from the moment the holder calls release to the moment the waiter that
 * gets the mutex next is running again, for RaceLab's hardened Redis mutex and for Redisson's
 * {@code RLock}, on the same server in the same run.
 *
 * <p>Two threads pass the mutex back and forth. The holder keeps it for 2 ms, long enough for the
 * other thread to be parked in its wait (so every sample is a real wake-up, not a free mutex
 * taken), notes the time, and releases. The other thread notes the time the moment its acquire
 * returns. The old holder asks again only once the new one holds the mutex, so Redisson's
 * unfair lock cannot be barged and neither lock gets a sample it did not earn.
 *
 * <p>Run with {@code scripts/bench mutex [hand-offs]}; uses {@code RACELAB_REDIS_URL} or the
 * embedded Redis.
 */
public final class MutexHandoffBenchmark {

    private static final long HOLD_NANOS = 2_000_000;
    private static final int WARM_UP = 200;

    private MutexHandoffBenchmark() {
    }

    /** One side of a mutex: acquire blocks until held. */
    private interface Lock {
        void acquire() throws Exception;

        void release() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int handoffs = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        Redis redis = TestServers.redis();
        System.out.printf("mutex hand-off (release → next holder running): 2 threads, %,d hand-offs after %d to warm up,"
                + " %d cores, %s%n", handoffs, WARM_UP, Runtime.getRuntime().availableProcessors(), redis.describe());

        KeySpace space = new KeySpace("bench-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()));
        RunThreads threads = RunThreads.unsupervised((thread, failure) -> {
            System.err.print(thread + " failed: ");
            failure.printStackTrace();
        });
        long[] ours;
        try (Jedis admin = redis.open(space.runId() + ":bench", 5_000);
             LeaseKeeper keeper = new LeaseKeeper(redis, space, Duration.ofSeconds(10), threads);
             SyncClient a = SyncClient.open(redis, space, "bench-1", SyncEvents.NONE, threads);
             SyncClient b = SyncClient.open(redis, space, "bench-2", SyncEvents.NONE, threads)) {
            Constructs constructs = Constructs.hardened(space, keeper);
            constructs.createSemaphore(admin, "mutex", 1);
            ours = measure(handoffs, ours(constructs.mutex(a, "mutex")), ours(constructs.mutex(b, "mutex")));
            space.forget(admin);
        }
        report("RaceLab hardened mutex", ours);

        RedissonClient redisson = Redisson.create(config(redis.address()));
        String lockName = space.key("redisson-lock");
        long[] theirs;
        try {
            RLock lock = redisson.getLock(lockName);
            theirs = measure(handoffs, redisson(lock), redisson(lock));
            lock.forceUnlock();
        } finally {
            redisson.shutdown();
            forgetRedissonLatches(redis, space, lockName);
        }
        report("Redisson " + Redisson.class.getPackage().getImplementationVersion() + " RLock", theirs);

        long ourP50 = percentile(ours, 50);
        long theirP50 = percentile(theirs, 50);
        long ourP99 = percentile(ours, 99);
        System.out.printf("goal p50 no worse than Redisson's: %s (%.3f vs %.3f ms) · goal p99 ≤ 5 ms: %s (%.3f ms)%n",
                ourP50 <= theirP50 ? "met" : "MISSED", ms(ourP50), ms(theirP50),
                ourP99 <= 5_000_000 ? "met" : "MISSED", ms(ourP99));
    }

    /**
     * Redisson marks each unlock with a key of its own naming, {@code redisson_unlock_latch:{lock}:…},
     * outside RaceLab's prefix; they would expire after a few seconds, but RaceLab leaves nothing
     * outside {@code racelab:} behind, so the benchmark deletes the ones its lock made.
     */
    private static void forgetRedissonLatches(Redis redis, KeySpace space, String lockName) {
        try (Jedis jedis = redis.open(space.runId() + ":bench", 5_000)) {
            ScanParams match = new ScanParams().match("redisson_unlock_latch:{" + lockName + "}:*").count(1_000);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, match);
                if (!page.getResult().isEmpty()) {
                    jedis.unlink(page.getResult().toArray(String[]::new));
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
    }

    private static Lock ours(Semaphore mutex) {
        return new Lock() {
            @Override
            public void acquire() throws Exception {
                if (!mutex.acquire(Duration.ofSeconds(30))) {
                    throw new IllegalStateException("no hand-off within 30 s");
                }
            }

            @Override
            public void release() {
                mutex.release();
            }
        };
    }

    private static Lock redisson(RLock lock) {
        return new Lock() {
            @Override
            public void acquire() {
                lock.lock();
            }

            @Override
            public void release() {
                lock.unlock();
            }
        };
    }

    /**
     * Passes the mutex between two threads {@code WARM_UP + handoffs} times; returns the hand-off
     * times in ns. Side 0 holds the even turns (from turn 0, taken freely), side 1 the odd ones;
     * a side asks for turn t only once the other holds turn t-1.
     */
    private static long[] measure(int handoffs, Lock first, Lock second) throws Exception {
        int total = WARM_UP + handoffs;
        long[] samples = new long[total];
        AtomicInteger held = new AtomicInteger(-1);
        AtomicLong releasedAt = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Lock[] locks = {first, second};
        Thread[] threads = new Thread[2];
        for (int side = 0; side < 2; side++) {
            int me = side;
            threads[side] = new Thread(() -> {
                try {
                    for (int turn = me; turn <= total; turn += 2) {
                        awaitTurnHeld(held, turn - 1);
                        locks[me].acquire();
                        if (turn > 0) {
                            samples[turn - 1] = System.nanoTime() - releasedAt.get();
                        }
                        announce(held, turn);
                        if (turn < total) {
                            LockSupport.parkNanos(HOLD_NANOS);
                        }
                        releasedAt.set(System.nanoTime());
                        locks[me].release();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    announce(held, Integer.MAX_VALUE);
                }
            }, "bench-" + (me + 1));
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the benchmark failed", failure.get());
        }
        return Arrays.copyOfRange(samples, WARM_UP, total);
    }

    /**
     * Blocks until the other side holds turn {@code turn} (or a later one). Blocking, not spinning:
     * on a small machine a spinning thread would steal the core the wake-up needs.
     */
    private static void awaitTurnHeld(AtomicInteger held, int turn) throws InterruptedException {
        synchronized (held) {
            while (held.get() < turn) {
                held.wait();
            }
        }
    }

    private static void announce(AtomicInteger held, int turn) {
        synchronized (held) {
            held.set(turn);
            held.notifyAll();
        }
    }

    private static void report(String what, long[] samples) {
        System.out.printf("%-28s p50 %.3f ms · p90 %.3f ms · p99 %.3f ms · max %.3f ms%n", what,
                ms(percentile(samples, 50)), ms(percentile(samples, 90)), ms(percentile(samples, 99)),
                ms(percentile(samples, 100)));
    }

    private static long percentile(long[] samples, double p) {
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static Config config(RedisAddress address) {
        Config config = new Config();
        var server = config.useSingleServer()
                .setAddress((address.tls() ? "rediss://" : "redis://") + address.host() + ":" + address.port())
                .setDatabase(address.database());
        if (address.hasPassword()) {
            String url = address.secretUrl();
            String auth = url.substring(url.indexOf("//") + 2, url.lastIndexOf('@'));
            int colon = auth.indexOf(':');
            server.setUsername(colon > 0 ? auth.substring(0, colon) : null).setPassword(auth.substring(colon + 1));
        }
        return config;
    }
}
