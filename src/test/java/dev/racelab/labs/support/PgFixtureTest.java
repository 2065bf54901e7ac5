package dev.racelab.labs.support;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgLockObserver;
import dev.racelab.backend.PgSessions;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Gate;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunThreads;
import dev.racelab.engine.ServerWatch;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.WorkerContext;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run's PostgreSQL through its fixture, against a real server: sessions in each mode, and what
 * the lock observer makes of advisory locks — held by a worker, or left in a pooled session that
 * went back to the pool, where no worker will ever unlock them.
 */
@Tag("lab")
class PgFixtureTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("fixture-test", 1,
            SqlFile.load(PgFixtureTest.class, "fixture-test.sql"));

    private final List<Throwable> threadFailures = new CopyOnWriteArrayList<>();
    private final List<PgFixture> fixtures = new ArrayList<>();
    private final Lane lane = new Lane();
    private String runId;

    @AfterEach
    void closeFixtures() throws Exception {
        for (PgFixture fixture : fixtures) {
            fixture.close();
        }
        assertEquals(List.of(), threadFailures, "no thread of the fixture failed");
    }

    @Test
    void aPooledSessionGivenBackHoldingAnAdvisoryLockIsAnOrphanUntilSomeoneUnlocksIt() throws Exception {
        PgFixture pg = open(1, PgSessions.Mode.pooled(1));
        Worker client = new Worker(0);
        PgSessions.Session session = pg.session(client);
        PgLockObserver observer = pg.lockObserver();

        int pid;
        try (PgSessions.Lease lease = session.borrow()) {
            pid = lease.pid();
            query(lease.connection(), "SELECT pg_advisory_lock(42)");
        }
        assertTrue(serverLocks(pid).contains("advisory 0 42 1 ExclusiveLock"), "the lock outlived the lease");
        assertEquals("racelab:pool-" + pid, applicationName(pid));
        observer.poll(lane);
        Event orphans = lane.last(EventKind.SERVER_ORPHANS);
        assertEquals("pool-" + pid + " holds advisory lock 42, no worker owns it", orphans.subject());
        assertEquals(1, orphans.value());
        assertNull(lane.last(EventKind.SERVER_HOLDS), "no worker holds it");

        try (PgSessions.Lease lease = session.borrow()) {
            assertEquals(pid, lease.pid(), "a pool of one lends the same session again");
            observer.poll(lane);
            assertEquals(new Holds(client.actor(), "advisory lock 42"), lane.lastHolds(),
                    "whoever holds the session now holds its lock");
            assertNull(lane.last(EventKind.SERVER_ORPHANS).subject(), "so it is no orphan any more");
            assertEquals(0, lane.last(EventKind.SERVER_ORPHANS).value());
            query(lease.connection(), "SELECT pg_advisory_unlock(42)");
        }
        observer.poll(lane);
        assertEquals(new Holds(client.actor(), null), lane.lastHolds());
        assertEquals(List.of(), serverLocks(pid));
        assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("pg-pool-")),
                "the pool's threads are the run's");
        session.close();
    }

    @Test
    void aWorkersOwnSessionHoldingAdvisoryLocksNobodyWaitsForShowsItHoldingThem() throws Exception {
        PgFixture pg = open(2, PgSessions.Mode.dedicated());
        Worker client = new Worker(0);
        PgSessions.Session session = pg.session(client);
        PgSessions.Session other = pg.session(new Worker(1));
        PgLockObserver observer = pg.lockObserver();
        Connection c = session.borrow().connection();

        query(c, "SELECT pg_advisory_lock(42)");
        observer.poll(lane);
        assertEquals(new Holds(client.actor(), "advisory lock 42"), lane.lastHolds());

        query(c, "SELECT pg_advisory_lock(1, 42)");
        observer.poll(lane);
        assertEquals(new Holds(client.actor(), "advisory lock 42, advisory lock (1, 42)"), lane.lastHolds(),
                "the two-key form is its own lock, written as the lab wrote it");

        query(c, "SELECT pg_advisory_unlock(42), pg_advisory_unlock(1, 42)");
        observer.poll(lane);
        assertEquals(new Holds(client.actor(), null), lane.lastHolds(), "after the unlocks it holds nothing");
        assertNull(lane.last(EventKind.SERVER_ORPHANS), "a worker's own session never holds an orphan");
        assertTrue(lane.events.stream().noneMatch(e -> e.value() == 2), "client-2 held nothing all along");
        other.close();
        session.close();
    }

    @Test
    void aWorkerWaitsForTheOrphanUntilTheUnlockRunsOnTheSessionThatHoldsIt() throws Exception {
        PgFixture pg = open(1, PgSessions.Mode.pooled(2));
        Worker client = new Worker(0);
        PgSessions.Session session = pg.session(client);
        PgLockObserver observer = pg.lockObserver();

        PgSessions.Lease locker = session.borrow();
        PgSessions.Lease waiter = session.borrow();
        int holder = locker.pid();
        query(locker.connection(), "SELECT pg_advisory_lock(7)");
        locker.close();
        CompletableFuture<Void> locked = new CompletableFuture<>();
        RunThreads.unsupervised((name, failure) -> threadFailures.add(failure)).start("waiter", () -> {
            try {
                query(waiter.connection(), "SELECT pg_advisory_lock(7)");
                locked.complete(null);
            } catch (SQLException e) {
                locked.completeExceptionally(e);
            }
        });
        try (PgProbe probe = new PgProbe()) {
            assertTrue(Poll.eventually(WAIT, () -> probe.waitingSessions().contains("racelab:pool-" + waiter.pid())),
                    "client-1's second session waits in PostgreSQL");
        }
        observer.poll(lane);
        assertEquals("for pool-" + holder + " (advisory lock 7)", lane.last(EventKind.SERVER_WAITS).subject());
        assertEquals("pool-" + holder + " holds advisory lock 7, no worker owns it",
                lane.last(EventKind.SERVER_ORPHANS).subject());

        try (PgSessions.Lease again = session.borrow()) {
            assertEquals(holder, again.pid(), "the only idle session is the one holding the lock");
            query(again.connection(), "SELECT pg_advisory_unlock(7)");
        }
        locked.get(30, TimeUnit.SECONDS);
        observer.poll(lane);
        assertNull(lane.last(EventKind.SERVER_WAITS).subject());
        assertEquals(new Holds(client.actor(), "advisory lock 7"), lane.lastHolds());
        assertNull(lane.last(EventKind.SERVER_ORPHANS).subject());
        query(waiter.connection(), "SELECT pg_advisory_unlock(7)");
        waiter.close();
        session.close();
    }

    /**
     * A worker whose lock call for a tracked lock is in flight on one of its sessions is not the
     * holder of that lock in another of its sessions, where nobody believes in it: the lane once
     * read "granted just now" off whoever used the holding session and asked for the key on any
     * session, and drew the worker holding a lock nobody will unlock.
     */
    @Test
    void aLockCallInFlightOnOneSessionIsNotTheHolderOfTheLockInAnother() throws Exception {
        PgFixture pg = open(1, PgSessions.Mode.pooled(2));
        Worker client = new Worker(0);
        PgSessions.Session session = pg.session(client);
        PgLockObserver observer = pg.lockObserver();
        AdvisoryKey key = AdvisoryKey.of(9);
        session.tracks(key);

        PgSessions.Lease locker = session.borrow();
        PgSessions.Lease other = session.borrow();
        int holder = locker.pid();
        query(locker.connection(), "SELECT pg_advisory_lock(9)");
        session.asks(key, other.pid());
        observer.poll(lane);
        observer.poll(lane);
        assertNull(lane.lastHolds(), "nobody is drawn holding it: " + lane.events);
        assertEquals("pool-" + holder + " holds advisory lock 9, no worker owns it",
                lane.last(EventKind.SERVER_ORPHANS).subject());

        session.asks(key, holder);
        observer.poll(lane);
        assertEquals(new Holds(client.actor(), "advisory lock 9 in pool-" + holder + ", granted just now"),
                lane.lastHolds(), "asked for on the session that has it: the asker's");
        session.asks(null, 0);
        query(locker.connection(), "SELECT pg_advisory_unlock(9)");
        locker.close();
        other.close();
        session.close();
    }

    @Test
    void closingTheFixtureEndsEverySessionOfTheRunAndSoEveryLockAndForgetsItsRows() throws Exception {
        PgFixture pg = open(2, PgSessions.Mode.pooled(2));
        Worker client = new Worker(0);
        PgSessions.Session session = pg.session(client);
        try (PgSessions.Lease lease = session.borrow()) {
            query(lease.connection(), "SELECT pg_advisory_lock(42)");
        }
        assertEquals(1, rowsOfRun(), "the run's row is seeded");
        Set<Integer> pids = client.connectedPids();

        fixtures.remove(pg);
        pg.close();

        try (PgProbe probe = new PgProbe()) {
            assertEquals(List.of(), probe.sessionsAlive(pids), "no session of the run is left");
            assertEquals(List.of(), probe.locksOf(pids), "and so no lock");
        }
        assertEquals(0, rowsOfRun(), "the run's row is gone");
        assertFalse(Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith("pg-pool-") && t.isAlive()), "the pool's threads ended");
    }

    /** Opens the fixture of a run of {@code workers} workers, with a run id of its own. */
    private PgFixture open(int workers, PgSessions.Mode mode) throws SQLException {
        runId = "fixture-test-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        RunSetup setup = new RunSetup(runId, null, workers, 1, 1, SwitchValues.DEFAULTS,
                RunThreads.unsupervised((thread, failure) -> threadFailures.add(failure)), new ServerWatch());
        PgFixture fixture = new PgFixture(TestServers.postgres(), setup, TABLES, mode);
        fixtures.add(fixture);
        return fixture;
    }

    private long rowsOfRun() throws SQLException {
        try (Connection c = TestServers.connect();
             PreparedStatement ps = c.prepareStatement(TABLES.sql().get("count"))) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void query(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.executeQuery().close();
        }
    }

    /** The locks backend {@code pid} holds, as {@code locktype classid objid objsubid mode}. */
    private static List<String> serverLocks(int pid) throws SQLException {
        List<String> locks = new ArrayList<>();
        try (Connection c = TestServers.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT locktype || ' ' || classid || ' ' || objid || ' ' || objsubid || ' ' || mode FROM pg_locks "
                        + "WHERE pid = ? AND locktype = 'advisory' ORDER BY 1")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locks.add(rs.getString(1));
                }
            }
        }
        return locks;
    }

    private static String applicationName(int pid) throws SQLException {
        try (Connection c = TestServers.connect();
             PreparedStatement ps = c.prepareStatement("SELECT application_name FROM pg_stat_activity WHERE pid = ?")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** What the observer said some worker holds. */
    private record Holds(long actor, String subject) {
    }

    /** The observer's lane: what it recorded, in order. Workers are actors 1, 2, …, named client-1, client-2, … */
    private static final class Lane implements ServerObserver.LaneSink {

        private final List<Event> events = new ArrayList<>();

        @Override
        public Event record(int lane, EventKind kind, String subject, long value) {
            Event event = new Event(events.size(), System.nanoTime(), 100 + lane, kind, subject, value);
            events.add(event);
            return event;
        }

        @Override
        public int workerActor(String name) {
            return name.startsWith("client-") ? Integer.parseInt(name.substring("client-".length())) : -1;
        }

        Event last(EventKind kind) {
            Event last = null;
            for (Event event : events) {
                if (event.kind() == kind) {
                    last = event;
                }
            }
            return last;
        }

        Holds lastHolds() {
            Event holds = last(EventKind.SERVER_HOLDS);
            return holds == null ? null : new Holds(holds.value(), holds.subject());
        }
    }

    /** A worker as the fixture sees one: a name, an actor, and the events it marks. */
    private static final class Worker implements WorkerContext {

        private final int index;
        private final List<Event> marks = new CopyOnWriteArrayList<>();

        Worker(int index) {
            this.index = index;
        }

        Set<Integer> connectedPids() {
            Set<Integer> pids = new TreeSet<>();
            marks.stream().filter(e -> e.kind() == EventKind.CONNECTED).forEach(e -> pids.add((int) e.value()));
            return pids;
        }

        @Override
        public int index() {
            return index;
        }

        @Override
        public String name() {
            return "client-" + (index + 1);
        }

        @Override
        public int actor() {
            return index + 1;
        }

        @Override
        public SplittableRandom random() {
            return new SplittableRandom(index);
        }

        @Override
        public void gate(Gate gate) {
        }

        @Override
        public boolean fault(Gate gate) {
            return false;
        }

        @Override
        public void takeTime(long nanos) throws InterruptedException {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(nanos);
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void backOff(long nanos) throws InterruptedException {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(nanos);
        }

        @Override
        public void state(ActorState state, String subject) {
        }

        @Override
        public ActorState currentState() {
            return ActorState.RUNNING;
        }

        @Override
        public Event mark(EventKind kind, String subject, long value) {
            Event event = new Event(marks.size(), System.nanoTime(), actor(), kind, subject, value);
            marks.add(event);
            return event;
        }

        @Override
        public boolean stopping() {
            return false;
        }
    }
}
