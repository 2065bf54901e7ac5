package dev.racelab.labs.support;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.ServerWaits;
import dev.racelab.engine.ServerWatch;
import dev.racelab.engine.Service;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.KeySpace;
import dev.racelab.labs.redis.sync.LeaseKeeper;
import dev.racelab.labs.redis.sync.LiveRuns;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.redis.sync.SyncEvents;
import dev.racelab.labs.redis.sync.WakeUpsBroken;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One run's share of Redis, for a scenario to hold (alone, or beside a PostgreSQL fixture): its
 * keys under {@code racelab:<run>:} ({@link #space}), its constructs, all of one variant ({@link
 * #constructs}, with a {@link LeaseKeeper} for the hardened ones), an admin connection for setting
 * up, judging and diagnosing ({@link #admin}), a {@link SyncClient} per worker ({@link #client}),
 * sentences for Redis's failures ({@link #explain}), and a {@link SyncObserver} for the server lane
 * ({@link #observer}).
 *
 * <p>Life: the scenario opens the fixture first in its constructor ({@link #article} or {@link
 * #hardened}), creates its keys through {@link #setUp}, makes one client per worker in {@code
 * worker}, and closes the fixture in its own {@code close}. Opening registers the run among the
 * server's {@link LiveRuns} before it creates a key (so a RaceLab killed mid-run leaves keys a
 * later run deletes) and deletes what runs killed earlier left. Closing closes every client still
 * open (with its subscriber), then the lease keeper, deletes the run's keys, removes its entry, and
 * closes the admin connection: nothing of the run outlives it, whatever the workers left open.
 *
 * <p>Threads: the supervisor opens, sets up, judges, diagnoses and closes, and is the only user of
 * {@link #admin}; {@link #client} may be called from any thread, and each client belongs to its
 * worker. Every thread the constructs start (a client's subscriber, the keeper's renewal) comes
 * from the run's {@link RunSetup#threads()}, so a failure in one is recorded in the run.
 */
public final class RedisFixture implements Fixture {

    /** Each worker costs two connections and a subscriber thread: more than this is not a lab any more. */
    public static final int MOST_WORKERS = 64;
    /** How long a worker waits for a permit: as long as the run lasts; the run's timeout judges a wait stuck. */
    public static final Duration PATIENCE = Duration.ofMinutes(10);

    private final Redis redis;
    private final RunSetup setup;
    private final KeySpace space;
    private final Jedis admin;
    /** Null for the article's constructs, which have no leases. */
    private final LeaseKeeper keeper;
    private final Constructs constructs;
    /** The run's entry among the live runs on the server, kept while the fixture is open. */
    private final LiveRuns alive;
    private final Set<SyncClient> clients = ConcurrentHashMap.newKeySet();
    /** What a scheduled run asks of Redis; its connection is the schedule thread's. */
    private final RedisWaits waits;
    /** Set when a probe found the server silent; read by whoever closes. */
    private volatile boolean silent;
    /** The admin connection is idle while the workers work: watched, so that its loss ends the run at once. */
    private final RedisOwnConnection adminWatch;

    private RedisFixture(Redis redis, RunSetup setup, Duration lease) {
        this.redis = redis;
        this.setup = setup;
        this.space = new KeySpace(setup.runId());
        this.admin = redis.open(setup.runId() + ":setup", 10_000);
        LiveRuns registered = null;
        LeaseKeeper renewing = null;
        try {
            registered = new LiveRuns(redis, space, setup.threads());
            LiveRuns.sweep(admin);
            space.forget(admin);
            renewing = lease == null ? null : new LeaseKeeper(redis, space, lease, setup.threads());
            this.adminWatch = new RedisOwnConnection(redis, setup.runId(), admin,
                    Postgres.APP_PREFIX + setup.runId() + ":setup", setup.threads());
        } catch (RuntimeException e) {
            try (admin; LeaseKeeper unused = renewing) {
                if (registered != null) {
                    registered.close();
                }
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        this.keeper = renewing;
        this.alive = registered;
        this.waits = new RedisWaits(redis, space, clients);
        this.constructs = keeper == null ? Constructs.article(space) : Constructs.hardened(space, keeper);
        setup.servers().watch(new ServerWatch.Check() {
            @Override
            public Optional<String> trouble() {
                return RedisFixture.this.trouble();
            }

            @Override
            public Optional<String> lost(Throwable failure) {
                return RedisFixture.this.lost(failure);
            }
        });
    }

    /** A run of the article's constructs, as written. */
    public static RedisFixture article(Redis redis, RunSetup setup) {
        return new RedisFixture(redis, setup, null);
    }

    /**
     * A run of the hardened constructs: their permits are held for {@code lease} at a time, renewed
     * by a {@link LeaseKeeper} while their holders live.
     */
    public static RedisFixture hardened(Redis redis, RunSetup setup, Duration lease) {
        return new RedisFixture(redis, setup, lease);
    }

    /**
     * Creates the run's keys: runs {@code steps} with the admin connection. If they fail, closes
     * the fixture before rethrowing, since the scenario that would have closed it is never made.
     */
    public void setUp(Consumer<Jedis> steps) {
        try {
            steps.accept(admin);
        } catch (RuntimeException | Error e) {
            try {
                close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The run's keys and channels. */
    public KeySpace space() {
        return space;
    }

    /** The run's constructs, all of the variant the fixture was opened with. */
    public Constructs constructs() {
        return constructs;
    }

    /** The run's own connection, for setting up, judging and diagnosing; the supervisor's only. */
    public Jedis admin() {
        return admin;
    }

    /**
     * Opens worker {@code context}'s client, which reports to {@code events}: the worker closes it
     * when it ends ({@link SyncWorker} does), and {@link #close} any it left open.
     */
    public SyncClient client(WorkerContext context, SyncEvents events) {
        SyncClient client = SyncClient.open(redis, space, context.name(), events, setup.threads(),
                context.pushedWait());
        clients.add(client);
        return client;
    }

    @Override
    public ServerWaits waits() {
        return waits;
    }

    /** Redis's own view of constructs {@code semaphores} and plain {@code values}, on server lane {@code lane}. */
    public SyncObserver observer(String lane, List<String> semaphores, List<SyncObserver.Value> values) {
        return new SyncObserver(redis, constructs, lane, semaphores, values);
    }

    /**
     * A sentence for {@code failure} if it is Redis's (the server failing, or a wait for a
     * wake-up that can no longer come); empty for any other, which the scenario explains itself
     * or hands to another fixture.
     */
    @Override
    public Optional<String> explain(Throwable failure) {
        if (failure instanceof JedisException e) {
            return Optional.of(redis.explain(e));
        }
        if (failure instanceof BackendException e && e.service() == Service.REDIS) {
            return Optional.of(e.getMessage());
        }
        if (failure instanceof WakeUpsBroken) {
            return Optional.of(failure.getMessage());
        }
        return Optional.empty();
    }

    /**
     * Closes every client still open, stops the keeper, deletes the run's keys, removes the run
     * from the live runs and closes the admin connection, in that order (so no renewal can write a
     * key after they are deleted, and no key outlives the run's entry); each step is taken even
     * when an earlier one failed.
     */
    @Override
    public void close() {
        try (admin) {
            try (keeper; adminWatch; waits) {
                closeClients();
            } finally {
                if (silent) {
                    // The server was found silent: its keys stay, and go with a later run's sweep
                    // once this run's deadline has passed.
                    alive.abandon();
                } else {
                    try {
                        space.forget(admin);
                    } finally {
                        alive.close();
                    }
                }
            }
        }
    }

    /**
     * Whether the server still answers a fresh connection within a few seconds; if not, a sentence
     * naming it, and from then on {@link #close} deletes nothing there.
     */
    public Optional<String> trouble() {
        try {
            redis.probe();
            return Optional.empty();
        } catch (BackendException e) {
            silent = true;
            return Optional.of(e.getMessage());
        }
    }

    /**
     * Whether {@code failure} is Redis breaking a client's connection: a sentence naming it. A
     * command that got no reply in time marks the server silent, so {@link #close} deletes
     * nothing there and waits on it no more.
     */
    public Optional<String> lost(Throwable failure) {
        Optional<String> lost = redis.lostConnection(failure);
        if (lost.isPresent() && Redis.timedOut(failure)) {
            silent = true;
        }
        return lost;
    }

    private void closeClients() {
        RuntimeException failure = null;
        for (SyncClient client : clients) {
            try {
                client.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
