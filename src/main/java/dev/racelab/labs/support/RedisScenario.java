package dev.racelab.labs.support;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Redis;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.KeySpace;
import dev.racelab.labs.redis.sync.LeaseKeeper;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.redis.sync.SyncEvents;
import dev.racelab.labs.redis.sync.WakeUpsBroken;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every Redis lab's run does the same way: its keys live under {@code racelab:<run>:}, it
 * makes its constructs of one variant (with a lease keeper for the hardened ones), gives each
 * worker a {@link SyncClient}, translates failures into sentences, and on close makes sure no
 * client, subscriber or keeper outlives it and deletes the run's keys.
 *
 * <p>Threads: the supervisor opens, judges, diagnoses and closes, using {@link #admin}; each
 * worker uses its own client.
 */
public abstract class RedisScenario implements Scenario {

    /** The servers a Redis lab needs. */
    public static final Set<Service> SERVICES = Set.of(Service.REDIS);
    /** Each worker costs two connections and a subscriber thread: more than this is not a lab any more. */
    public static final int MOST_WORKERS = 64;

    /** How long a worker waits for a permit: as long as the run lasts; the run's timeout judges a wait stuck. */
    protected static final Duration PATIENCE = Duration.ofMinutes(10);

    protected final Redis redis;
    protected final RunSetup setup;
    protected final KeySpace space;
    protected final Constructs constructs;
    /** The run's own connection, for setting up, judging and diagnosing; the supervisor's only. */
    protected final Jedis admin;
    private final LeaseKeeper keeper;
    private final Set<SyncClient> clients = ConcurrentHashMap.newKeySet();

    /**
     * @param lease the hardened constructs' lease; null for the article's constructs
     */
    protected RedisScenario(Redis redis, RunSetup setup, Duration lease) {
        this.redis = redis;
        this.setup = setup;
        this.space = new KeySpace(setup.runId());
        this.admin = redis.open(setup.runId() + ":setup", 10_000);
        try {
            space.forget(admin);
            this.keeper = lease == null ? null : new LeaseKeeper(redis, space, lease, setup.threads());
        } catch (RuntimeException e) {
            admin.close();
            throw e;
        }
        this.constructs = keeper == null ? Constructs.article(space) : Constructs.hardened(space, keeper);
    }

    /** Opens worker {@code context}'s client; the worker closes it, and {@link #close} any it left open. */
    protected SyncClient client(WorkerContext context, SyncEvents events) {
        SyncClient client = SyncClient.open(redis, space, context.name(), events, setup.threads());
        clients.add(client);
        return client;
    }

    @Override
    public String explain(Throwable failure) {
        if (failure instanceof JedisException e) {
            return redis.explain(e);
        }
        if (failure instanceof BackendException || failure instanceof WakeUpsBroken) {
            return failure.getMessage();
        }
        return Scenario.super.explain(failure);
    }

    @Override
    public void close() throws Exception {
        try (admin) {
            clients.forEach(SyncClient::close);
            if (keeper != null) {
                keeper.close();
            }
            space.forget(admin);
        }
    }
}
