package dev.racelab.labs.leasefencing;

import dev.racelab.backend.Backends;
import dev.racelab.backend.PgSessions;
import dev.racelab.backend.Redis;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.LeaseLock;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.support.PgFixture;
import dev.racelab.labs.support.RecordingEvents;
import dev.racelab.labs.support.RedisFixture;
import dev.racelab.labs.support.SyncWorker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One run of the lease-fencing lab: a lease lock in Redis, one record in PostgreSQL. Every
 * operation of a client: take the lock (its lease comes with a fencing token), (check with Redis
 * that it is still the holder), write its value and token to the record, release the lock.
 *
 * <p>The oracle: a write must never replace a write made under a newer lease. The record's
 * trigger tells each accepted write which token it replaced; a replaced token higher than the
 * writer's own is a stale write applied: its writer's lease had run out, and a newer holder had
 * taken the lock and written meanwhile. The run also counts the moments two clients believed they
 * held the lock at once, which happen in every strategy: only what the record accepts differs.
 *
 * <p>Threads: each client's thread runs its own script; the shared counts are atomic. Which
 * client believes it holds the lock is kept per client ({@link #believed}), written by that client
 * and read by any client taking the lock.
 */
final class LeaseFencingScenario implements Scenario {

    static final String LOCK = "lock";
    static final String RECORD = "the record";
    static final String STALE = "stale writes applied";
    /** The server lanes, top to bottom, and what the second shows of the record. */
    static final String REDIS_LANE = "Redis lock";
    static final String PG_LANE = "PostgreSQL row";
    static final String TOKEN = "token";
    static final String REJECTED = "rejected";

    private static final SqlFile SQL = SqlFile.load(LeaseFencingScenario.class, "lease-fencing.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("lease-fencing", 1, SQL);

    private final LeaseFencingStrategy strategy;
    private final RunSetup setup;
    private final Duration lease;
    private final boolean keeper;
    private final Redis server;
    private final PgFixture pg;
    private final RedisFixture redis;

    /** Per client (by index): its name and actor id, filled as the workers are made, before any runs. */
    private final String[] names;
    private final int[] actors;
    /** Per client: the token of the lease it believes it holds, 0 when it believes it holds none. */
    private final AtomicLongArray believed;
    /** Per token: who got it (index + 1), and the sequence number plus one of the write it carried. */
    private final AtomicIntegerArray holderOfToken;
    private final AtomicLongArray writeOfToken;
    private final LongAdder accepted = new LongAdder();
    private final LongAdder staleApplied = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder twoHolders = new LongAdder();
    private final RecordingEvents.Tally tally = new RecordingEvents.Tally();
    /** The first stale write applied, in words, for the verdict. */
    private final AtomicReference<String> firstStale = new AtomicReference<>();

    LeaseFencingScenario(Backends backends, LeaseFencingStrategy strategy, RunSetup setup) throws Exception {
        this.strategy = strategy;
        this.setup = setup;
        this.lease = Duration.ofMillis(setup.get(LeaseFencingLab.LEASE_MS));
        this.keeper = setup.get(LeaseFencingLab.KEEPER);
        this.names = new String[setup.workers()];
        this.actors = new int[setup.workers()];
        this.believed = new AtomicLongArray(setup.workers());
        int tokens = setup.workers() * setup.ops() + 1;
        this.holderOfToken = new AtomicIntegerArray(tokens);
        this.writeOfToken = new AtomicLongArray(tokens);
        this.pg = new PgFixture(backends.postgres(), setup, TABLES, PgSessions.Mode.dedicated());
        try {
            this.server = backends.redis();
            // The hardened constructs are the ones with a lease keeper; the lock is the same either way.
            this.redis = keeper ? RedisFixture.hardened(server, setup, lease) : RedisFixture.article(server, setup);
        } catch (Exception | Error e) {
            pg.close();
            throw e;
        }
    }

    /** What client {@code index} (0-based) writes in operation {@code n}: its number in the hundreds, the write's below. */
    static long valueFor(int index, int n) {
        return (index + 1) * 100L + n + 1;
    }

    @Override
    public SyncWorker worker(WorkerContext context) throws SQLException {
        names[context.index()] = context.name();
        actors[context.index()] = context.actor();
        PgSessions.Session session = pg.session(context);
        try {
            SyncClient client = redis.client(context, new Events(context));
            return new Client(context, client, session, redis.constructs().leaseLock(client, LOCK, lease));
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(new LeaseObserver(server, redis.constructs(), LOCK, REDIS_LANE),
                pg.valueObserver(PG_LANE, "observe-record", List.of(TOKEN, REJECTED)));
    }

    @Override
    public Outcome judge(RunSummary summary) throws SQLException {
        long value;
        long token;
        long refused;
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("read-record"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                value = rs.getLong(1);
                token = rs.getLong(2);
                refused = rs.getLong(3);
            }
        }
        String issued = redis.admin().get(redis.constructs().tokenKey(LOCK));
        long stale = staleApplied.sum();
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("finalValue", value);
        metrics.put("finalToken", token);
        metrics.put("maxToken", issued == null ? 0 : Long.parseLong(issued));
        metrics.put("acceptedWrites", accepted.sum());
        metrics.put("rejectedWrites", refused);
        metrics.put("staleWritesApplied", stale);
        metrics.put("skippedWrites", skipped.sum());
        metrics.put("twoHolders", twoHolders.sum());
        metrics.put("refusedReleases", tally.refused.sum());
        Map<String, Long> violations = new LinkedHashMap<>();
        String moments = twoHolders.sum() == 0 ? ""
                : " " + count(twoHolders.sum(), "time") + " a client took the lock while another still believed it held it.";
        String keeping = keeper ? " The lease keeper renews a lease only while its holder's process runs: a paused "
                + "process renews nothing." : "";
        if (stale > 0) {
            violations.put(STALE, stale);
            return new Outcome(Verdict.RACE, count(stale, "stale write") + " applied",
                    firstStale.get() + (stale > 1 ? " " + count(stale - 1, "more stale write") + " like it." : "")
                            + moments + keeping, violations, metrics, List.of());
        }
        if (refused > 0) {
            return new Outcome(Verdict.SAFE, count(refused, "stale write") + " rejected",
                    "Every lease's token is higher than the one before; PostgreSQL refused each write whose token "
                            + "was lower than the one that wrote last, so no client wrote over a newer holder."
                            + moments, violations, metrics, List.of());
        }
        long skippedWrites = skipped.sum();
        return new Outcome(Verdict.SAFE, "no stale write applied", ("No write landed on a newer lease's write."
                + (skippedWrites > 0 ? " " + count(skippedWrites, "time") + " a client found in Redis that its lease had "
                        + "run out, and did not write." : "") + moments).strip(),
                violations, metrics, List.of());
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg, redis);
    }

    private String name(long token) {
        int holder = token > 0 && token < holderOfToken.length() ? holderOfToken.get((int) token) : 0;
        return holder == 0 ? "nobody" : names[holder - 1];
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** The lock's incidents on the client's lane, in this lab's words. */
    private final class Events extends RecordingEvents {
        Events(WorkerContext context) {
            super(context, LeaseFencingScenario.this.tally);
        }

        @Override
        public void refused(String construct) {
            tally.refused.increment();
            context.mark(EventKind.NOTE, "release refused: the lease had run out, so the lock was no longer this "
                    + "client's to release", 0);
        }
    }

    /** One client: take the lock, (check it), write the record, let the lock go; once per operation. */
    private final class Client extends SyncWorker {

        private final PgSessions.Session session;
        private final LeaseLock lock;

        Client(WorkerContext context, SyncClient client, PgSessions.Session session, LeaseLock lock) {
            super(context, client);
            this.session = session;
            this.lock = lock;
        }

        @Override
        public void operation(int n) throws Exception {
            context.gate(LeaseFencingLab.BEFORE_ACQUIRE);
            long token = lock.tryAcquire();
            if (token == 0) {
                context.state(ActorState.WAITING, LOCK);
                token = lock.awaitTurn(RedisFixture.PATIENCE);
                if (token == 0) {
                    throw new IllegalStateException(context.name() + " never got the lock");
                }
            }
            took(token);
            // The release runs whatever ends the hold (a failed write, the run stopping the client
            // at a gate): a lease left in Redis would keep the others out until it ran out, or for
            // as long as a lease keeper renews it. This lab has no fault gate that skips it.
            Throwable failure = null;
            try {
                stopTheWorld(LeaseFencingLab.PAUSE_AFTER_ACQUIRE);
                if (strategy != LeaseFencingStrategy.LEASE_CHECK_OWNER || stillMine(token)) {
                    stopTheWorld(LeaseFencingLab.PAUSE_BEFORE_WRITE);
                    context.gate(LeaseFencingLab.SLOW_WRITE);
                    write(n, token);
                }
            } catch (Throwable t) {
                failure = t;
                throw t;
            } finally {
                letGo(failure);
            }
            context.state(ActorState.RUNNING);
        }

        /** Releases the lock; a release that fails after {@code failure} is added to it, never hides it. */
        private void letGo(Throwable failure) {
            believed.set(context.index(), 0);
            try {
                lock.release();
            } catch (RuntimeException e) {
                if (failure == null) {
                    throw e;
                }
                failure.addSuppressed(e);
            }
        }

        /** Holds the lock now, as far as it knows; says so if another client still believes the same. */
        private void took(long token) {
            context.state(ActorState.CRITICAL, "lease #" + token);
            context.mark(EventKind.TOKEN, "fencing token", token);
            holderOfToken.set((int) token, context.index() + 1);
            for (int other = 0; other < believed.length(); other++) {
                long theirs = believed.get(other);
                if (other != context.index() && theirs > 0) {
                    twoHolders.increment();
                    context.mark(EventKind.TWO_HOLDERS, names[other] + " still believes it holds the lock with lease #"
                            + theirs + ", which ran out before " + context.name() + " took it with #" + token,
                            actors[other]);
                }
            }
            believed.set(context.index(), token);
        }

        /** A pause of the whole process at {@code gate}: nothing of the client runs, its lease keeper neither. */
        private void stopTheWorld(Gate gate) throws InterruptedException {
            lock.suspendRenewal();
            try {
                context.gate(gate);
            } finally {
                lock.resumeRenewal();
            }
        }

        /** lease-check-owner's check: does Redis still name this client as the holder? */
        private boolean stillMine(long token) {
            if (lock.held()) {
                context.state(ActorState.CRITICAL, "lease #" + token + ", checked: still mine");
                return true;
            }
            skipped.increment();
            context.mark(EventKind.NOTE, "checked Redis: the lock is no longer mine (lease #" + token
                    + " ran out), so no write", token);
            return false;
        }

        private void write(int n, long token) throws SQLException {
            boolean fenced = strategy == LeaseFencingStrategy.FENCED;
            long value = valueFor(context.index(), n);
            try (PgSessions.Lease borrowed = session.borrow()) {
                Connection c = borrowed.connection();
                try (PreparedStatement ps = c.prepareStatement(SQL.get(fenced ? "write-if-newer" : "write"))) {
                    ps.setLong(1, value);
                    ps.setLong(2, token);
                    ps.setString(3, setup.runId());
                    if (fenced) {
                        ps.setLong(4, token);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            accepted(token, value, rs.getLong(1));
                            return;
                        }
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(SQL.get("count-rejection"))) {
                    ps.setString(1, setup.runId());
                    ps.executeUpdate();
                }
                context.mark(EventKind.WRITE_REJECTED, RECORD, token);
            }
        }

        /**
         * PostgreSQL took the write, which replaced the write with token {@code replaced}. If that
         * token is newer, this write is stale: marked, counted, and pointed at the write it replaced
         * (recorded by its worker right after it committed; one not recorded yet goes without arrow).
         */
        private void accepted(long token, long value, long replaced) {
            accepted.increment();
            context.mark(EventKind.WRITE_ACCEPTED, RECORD, token);
            Event write = context.mark(EventKind.WRITE, RECORD, value);
            if (write != null) {
                writeOfToken.set((int) token, write.seq() + 1);
            }
            if (replaced <= token) {
                return;
            }
            staleApplied.increment();
            context.violation(STALE, replaced);
            long seqPlusOne = writeOfToken.get((int) replaced);
            if (seqPlusOne > 0) {
                context.mark(EventKind.OVERWROTE, RECORD, seqPlusOne - 1);
            }
            firstStale.compareAndSet(null, context.name() + " wrote with lease #" + token + " after that lease had run "
                    + "out: " + name(replaced) + " had taken the lock meanwhile and written with #" + replaced
                    + ", and PostgreSQL took the stale write over it"
                    + (strategy == LeaseFencingStrategy.LEASE_CHECK_OWNER
                            ? " (" + context.name() + " had checked with Redis that the lock was its own, then stopped "
                                    + "before writing)."
                            : "."));
        }

        @Override
        public void abort() {
            session.abort();
            super.abort();
        }

        @Override
        public void close() {
            try {
                session.close();
            } catch (SQLException ignored) {
                // The fixture ends every session of the run anyway.
            }
            super.close();
        }
    }
}
