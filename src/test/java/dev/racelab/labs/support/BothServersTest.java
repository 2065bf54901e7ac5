package dev.racelab.labs.support;

import dev.racelab.backend.Backends;
import dev.racelab.backend.PgSessions;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.Actor;
import dev.racelab.engine.Clock;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.Semaphore;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lab that uses PostgreSQL and Redis in one run, as {@code lease-fencing} will: workers take a
 * mutex in Redis and, holding it, read and write a counter row in PostgreSQL. Both fixtures live
 * in one scenario; both servers' lanes are on the record; closing the run leaves neither a key
 * nor a row behind. With the mutex taken the increments are safe; without it they are lost.
 */
@Tag("lab")
class BothServersTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("both-servers-test", 1,
            SqlFile.load(BothServersTest.class, "both-servers.sql"));
    private static final Gate AFTER_READ = new Gate("after-read", "read the row, not yet written it back");

    enum Guard implements Strategy {
        NONE(About.broken("no-mutex", "No mutex", "read, then write, each worker on its own")),
        REDIS_MUTEX(About.fix("redis-mutex", "Redis mutex", "read and write holding a hardened Redis mutex"));

        private final About about;

        Guard(About about) {
            this.about = about;
        }

        @Override
        public About about() {
            return about;
        }
    }

    /** The lab: the only place it differs from a real one is that it lives in a test. */
    static final class BothServersLab extends ProfiledLab<Guard> {

        private final Backends backends;

        BothServersLab(Backends backends) {
            super(Guard.class, new LabProfile("both-servers", "Both servers", "A Redis mutex guards a PostgreSQL row.",
                    Set.of(Service.POSTGRES, Service.REDIS), List.of(Guard.values()), List.of(AFTER_READ),
                    new LabProfile.Crew("client", 4, 1, 8), 10));
            this.backends = backends;
        }

        @Override
        protected Scenario open(Guard guard, RunSetup setup) throws Exception {
            return new BothServersScenario(backends, guard, setup);
        }
    }

    static final class BothServersScenario implements Scenario {

        private final Guard guard;
        private final RunSetup setup;
        private final PgFixture pg;
        private final RedisFixture redis;

        BothServersScenario(Backends backends, Guard guard, RunSetup setup) throws Exception {
            this.guard = guard;
            this.setup = setup;
            this.pg = new PgFixture(backends.postgres(), setup, TABLES, PgSessions.Mode.dedicated());
            try {
                this.redis = RedisFixture.hardened(backends.redis(), setup, Duration.ofSeconds(2));
                redis.setUp(admin -> redis.constructs().createSemaphore(admin, "mutex", 1));
            } catch (Exception | Error e) {
                pg.close();
                throw e;
            }
        }

        @Override
        public LabWorker worker(WorkerContext context) throws SQLException {
            PgSessions.Session session = pg.session(context);
            SyncClient client = redis.client(context, new RecordingEvents(context, new RecordingEvents.Tally()));
            Semaphore mutex = redis.constructs().mutex(client, "mutex");
            return new SyncWorker(context, client) {
                @Override
                public void operation(int n) throws Exception {
                    if (guard == Guard.REDIS_MUTEX && !mutex.acquire(RedisFixture.PATIENCE)) {
                        throw new IllegalStateException(context.name() + " never got the mutex");
                    }
                    try (PgSessions.Lease lease = session.borrow()) {
                        Connection c = lease.connection();
                        long value = query(c, "read");
                        context.mark(EventKind.READ, "counter", value);
                        context.gate(AFTER_READ);
                        try (PreparedStatement write = c.prepareStatement(TABLES.sql().get("write"))) {
                            write.setLong(1, value + 1);
                            write.setString(2, setup.runId());
                            write.executeUpdate();
                        }
                        context.mark(EventKind.WRITE, "counter", value + 1);
                    } finally {
                        if (guard == Guard.REDIS_MUTEX) {
                            mutex.release();
                        }
                    }
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
            };
        }

        private long query(Connection c, String statement) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(TABLES.sql().get(statement))) {
                ps.setString(1, setup.runId());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }

        @Override
        public List<ServerObserver> observers() {
            return List.of(pg.lockObserver(new PgFixture.Row("the counter row", "row-xmax")),
                    redis.observer("redis: mutex", List.of("mutex"), List.of()));
        }

        @Override
        public Outcome judge(RunSummary summary) throws SQLException {
            long value = query(pg.admin(), "read");
            long expected = summary.opsCompleted();
            return value == expected
                    ? new Outcome(Verdict.SAFE, "all " + expected + " increments counted", "", Map.of(),
                            Map.of("value", value), List.of())
                    : new Outcome(Verdict.RACE, (expected - value) + " increments lost", "",
                            Map.of("lost increments", expected - value), Map.of("value", value), List.of());
        }

        @Override
        public String explain(Throwable failure) {
            return pg.explain(failure).or(() -> redis.explain(failure))
                    .orElseGet(() -> Scenario.super.explain(failure));
        }

        @Override
        public void close() throws Exception {
            try (pg) {
                redis.close();
            }
        }
    }

    private final BothServersLab lab = new BothServersLab(TestServers.backends());

    private Run run(Guard guard) throws Exception {
        RunSpec spec = lab.defaults().withStrategy(guard.id()).withObserve(true)
                .withGates(GatePlan.NONE.with(AFTER_READ.id(), GateRule.fixed(2)));
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        run.awaitOutcome(WAIT);
        return run;
    }

    @Test
    void aRedisMutexGuardsAPostgresRowInOneRunAndBothServersAreOnTheRecord() throws Exception {
        Run run = run(Guard.REDIS_MUTEX);
        Outcome outcome = run.record().outcome();
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner() + " " + outcome.explanation());
        assertEquals(40L, outcome.metrics().get("value"), "4 clients × 10 increments");
        List<String> serverLanes = run.record().events().snapshot().stream()
                .filter(e -> e.kind() == EventKind.ACTOR && e.value() == Actor.Kind.SERVER.ordinal())
                .map(e -> e.subject()).toList();
        assertEquals(List.of("PostgreSQL locks", "redis: mutex"), serverLanes);
        assertTrue(run.record().events().snapshot().stream().anyMatch(e -> e.kind() == EventKind.LOCK_ACQUIRED
                && "mutex".equals(e.subject())), "the workers took the Redis mutex");
        assertNothingLeft(run.id());
    }

    @Test
    void withoutTheMutexTheSameWorkersLoseIncrements() throws Exception {
        Run run = run(Guard.NONE);
        assertEquals(Verdict.RACE, run.record().outcome().verdict(), run.record().outcome().banner());
        assertNothingLeft(run.id());
    }

    @Test
    void someoneElsesTableWhereTheLabsWouldGoFailsTheRunAsTheServersRefusalAndIsLeftAlone() throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS racelab.both_servers_counters");
            s.execute("DELETE FROM racelab.schema_versions WHERE component = 'both-servers-test'");
            s.execute("CREATE TABLE racelab.both_servers_counters (theirs text)");
            s.execute("INSERT INTO racelab.both_servers_counters VALUES ('their row')");
            try {
                Run run = run(Guard.NONE);

                assertEquals(Verdict.ERROR, run.record().outcome().verdict(), run.record().outcome().banner());
                String failure = run.record().serverFailure();
                assertNotNull(failure, "the server's state failed the run (the command line exits 1), not the lab: "
                        + run.record().outcome().explanation());
                assertTrue(failure.startsWith("PostgreSQL at ") && failure.contains(
                        "racelab.both_servers_counters already exists, and RaceLab did not create it"), failure);
                try (ResultSet rs = s.executeQuery("SELECT theirs FROM racelab.both_servers_counters")) {
                    assertTrue(rs.next());
                    assertEquals("their row", rs.getString(1), "their table is untouched");
                }
            } finally {
                s.execute("DROP TABLE racelab.both_servers_counters");
            }
        }
    }

    /** Neither server keeps anything of the run: no key, no row. */
    private static void assertNothingLeft(String runId) throws SQLException {
        try (Jedis jedis = TestServers.redis().open("test", 5_000)) {
            assertEquals(Set.of(), jedis.keys("racelab:" + runId + ":*"), "no key of the run is left");
        }
        try (Connection c = TestServers.connect();
             PreparedStatement rows = c.prepareStatement("SELECT count(*) FROM racelab.both_servers_counters "
                     + "WHERE run_id = ?")) {
            rows.setString(1, runId);
            try (ResultSet rs = rows.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getInt(1), "no row of the run is left");
            }
        }
    }
}
