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
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Mutex hand-off latency: from the moment the holder calls release to the moment the waiter that
 * gets the mutex next is running again, for RaceLab's hardened Redis mutex and for Redisson's
 * {@code RLock}, on the same server in the same run.
 *
 * <p>Two threads pass the mutex back and forth ({@link Handoffs}); the holder keeps it for 2 ms,
 * long enough for the other thread to be parked in its wait, and Redisson's unfair lock cannot be
 * barged.
 *
 * <p>Run with {@code scripts/bench mutex [hand-offs]}; uses {@code RACELAB_REDIS_URL} or the
 * embedded Redis.
 */
public final class MutexHandoffBenchmark {

    private static final long HOLD_NANOS = 2_000_000;
    private static final int WARM_UP = 200;

    private MutexHandoffBenchmark() {
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
            ours = Handoffs.measure(WARM_UP, handoffs, HOLD_NANOS, ours(constructs.mutex(a, "mutex")), ours(constructs.mutex(b, "mutex")));
            space.forget(admin);
        }
        Handoffs.report("RaceLab hardened mutex", ours);

        RedissonClient redisson = Redisson.create(config(redis.address()));
        String lockName = space.key("redisson-lock");
        long[] theirs;
        try {
            RLock lock = redisson.getLock(lockName);
            theirs = Handoffs.measure(WARM_UP, handoffs, HOLD_NANOS, redisson(lock), redisson(lock));
            lock.forceUnlock();
        } finally {
            redisson.shutdown();
            forgetRedissonLatches(redis, space, lockName);
        }
        Handoffs.report("Redisson " + Redisson.class.getPackage().getImplementationVersion() + " RLock", theirs);

        long ourP50 = Handoffs.percentile(ours, 50);
        long theirP50 = Handoffs.percentile(theirs, 50);
        long ourP99 = Handoffs.percentile(ours, 99);
        System.out.printf("goal p50 no worse than Redisson's: %s (%.3f vs %.3f ms) · goal p99 ≤ 5 ms: %s (%.3f ms)%n",
                ourP50 <= theirP50 ? "met" : "MISSED", Handoffs.ms(ourP50), Handoffs.ms(theirP50),
                ourP99 <= 5_000_000 ? "met" : "MISSED", Handoffs.ms(ourP99));
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

    private static Handoffs.Lock ours(Semaphore mutex) {
        return new Handoffs.Lock() {
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

    private static Handoffs.Lock redisson(RLock lock) {
        return new Handoffs.Lock() {
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
