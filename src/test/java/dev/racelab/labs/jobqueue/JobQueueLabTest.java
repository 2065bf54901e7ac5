package dev.racelab.labs.jobqueue;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.RecordingSketch;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job queue against a real PostgreSQL: duplicates from selecting then updating, the request
 * token's short batches, skip-locked's full ones, and what a crash or a slow consumer does to a
 * claim with and without a lease and a conditional mark.
 */
@Tag("lab")
class JobQueueLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int RUNS = 10;
    /** Worker indexes: the producer is worker 0. */
    private static final int CONSUMER_1 = 1;
    private static final int CONSUMER_2 = 2;

    private final JobQueueLab lab = new JobQueueLab(TestServers.backends());

    private Run start(RunSpec spec) {
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        return run;
    }

    /**
     * Four consumers, one round of a batch of four each (16 jobs), a 1 ms send and a delay of
     * 5–15 ms after each consumer knows its jobs; no other delay, so the consumers start together.
     */
    private RunSpec underLoad(String strategy, long seed) {
        return lab.defaults().withStrategy(strategy).withWorkers(5).withOps(1).withSeed(seed)
                .with(JobQueueLab.SEND_MS, 1)
                .withGates(GatePlan.NONE.with(JobQueueLab.AFTER_SELECT.id(), GateRule.range(5, 15)));
    }

    /** {@link #RUNS} runs of {@code strategy} under {@link #underLoad}, one after another. */
    private List<Outcome> tenRuns(String strategy) throws Exception {
        List<Outcome> outcomes = new ArrayList<>();
        for (int seed = 1; seed <= RUNS; seed++) {
            outcomes.add(start(underLoad(strategy, seed)).awaitOutcome(WAIT));
        }
        return outcomes;
    }

    @Test
    void underTheSameLoadSelectThenUpdateSendsDuplicatesEveryTimeAndTheClaimsSendEachJobOnce() throws Exception {
        List<CompletableFuture<List<Outcome>>> going = List.of("select-then-update", "request-token", "skip-locked")
                .stream().map(strategy -> CompletableFuture.supplyAsync(() -> {
                    try {
                        return tenRuns(strategy);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })).toList();
        List<Outcome> selectThenUpdate = going.get(0).join();
        List<Outcome> requestToken = going.get(1).join();
        List<Outcome> skipLocked = going.get(2).join();

        for (Outcome outcome : selectThenUpdate) {
            assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
            long duplicates = outcome.violations().get(JobQueueScenario.DUPLICATES);
            assertTrue(duplicates > 0, outcome.banner());
            assertEquals(16L + duplicates, outcome.metrics().get("emailsSent"), "every job went out, some twice");
            assertEquals(0L, outcome.metrics().get("lostJobs"));
        }
        for (Outcome outcome : requestToken) {
            exactlyOnce(outcome);
        }
        for (Outcome outcome : skipLocked) {
            exactlyOnce(outcome);
            assertEquals(0L, outcome.metrics().get("shortBatches"), "skip-locked passes over locked jobs: full batches");
        }
        System.out.printf("[job-queue] 4 consumers, after-select=5-15, %d runs each: select-then-update duplicates %s; "
                        + "request-token short batches %s%n", RUNS,
                selectThenUpdate.stream().map(o -> o.metrics().get("duplicateEmails")).toList(),
                requestToken.stream().map(o -> o.metrics().get("shortBatches")).toList());
    }

    private static void exactlyOnce(Outcome outcome) {
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner() + " " + outcome.explanation());
        assertEquals("every job sent exactly once: 16 jobs, " + outcome.metrics().get("jobsPerSec") + " jobs/s",
                outcome.headline());
        assertEquals(16L, outcome.metrics().get("emailsSent"));
        assertEquals(0L, outcome.metrics().get("duplicateEmails"));
        assertEquals(0L, outcome.metrics().get("lostJobs"));
        assertTrue(outcome.metrics().get("jobsPerSec").longValue() > 0);
    }

    /**
     * The source article's caveat, staged: consumer-1's claim holds three of the four oldest jobs
     * and waits for the fourth (which the test holds); consumer-2's claim, finding the same four
     * free, waits for consumer-1. When consumer-1 commits, PostgreSQL rechecks {@code
     * request_token IS NULL} for consumer-2 and none of the four passes: a batch of none, though it
     * found four free. Nobody sends a job twice.
     */
    @Test
    void aRequestTokenClaimThatWaitsForAnotherComesBackShort() throws Exception {
        Run run = tokenClaimsHeldBeforeTheirFirstTake();
        assertEquals(JobQueueLab.BEFORE_TAKE, run.gates().awaitSettled(CONSUMER_2, WAIT));

        try (Connection test = TestServers.connect()) {
            test.setAutoCommit(false);
            try (PreparedStatement lock = test.prepareStatement(
                    "SELECT id FROM racelab.email_jobs WHERE run_id = ? AND id = 4 FOR UPDATE")) {
                lock.setString(1, run.id());
                lock.executeQuery().close();
            }
            run.step(CONSUMER_1);
            assertTrue(Poll.eventually(WAIT, () -> waitsForALock(test, run, "consumer-1")),
                    "consumer-1's claim waits for job 4");
            run.step(CONSUMER_2);
            assertTrue(Poll.eventually(WAIT, () -> waitsForALock(test, run, "consumer-2")),
                    "consumer-2's claim waits for consumer-1");
            test.commit();
        }
        Poll.until("consumer-2's claim came back", () -> count(run, EventKind.SHORT_BATCH, CONSUMER_2) == 1);
        run.gates().setPlan(GatePlan.NONE);
        Outcome outcome = run.awaitOutcome(WAIT);

        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertTrue(outcome.metrics().get("shortBatches").longValue() >= 1, outcome.explanation());
        Event shortBatch = run.recorder().snapshot().stream()
                .filter(e -> e.kind() == EventKind.SHORT_BATCH && e.actor() == run.workerActor(CONSUMER_2))
                .findFirst().orElseThrow();
        assertEquals("found 4 free, got 0: others claimed the rest first", shortBatch.subject());
        assertEquals(8L, outcome.metrics().get("emailsSent"));
        assertEquals(List.of(String.valueOf(outcome.metrics().get("shortBatches"))), panel(run, "short batches"));
        assertEquals(List.of(String.valueOf(outcome.metrics().get("jobsPerSec"))), panel(run, "jobs/s"));
    }

    /**
     * Two sessions that lock the same jobs in opposite orders deadlock, and PostgreSQL cancels one:
     * here consumer-1's claim holds jobs 1-3 and waits for job 4, which the test holds while it
     * asks for job 1. consumer-1 waited first, so its deadlock check runs first and cancels its
     * claim (40P01). The claim took nothing; the consumer says so and claims again, and the run
     * sends every job once, as a plain program that retries would.
     */
    @Test
    void aTokenClaimCancelledAsADeadlockIsClaimedAgainAndEveryJobIsSentOnce() throws Exception {
        theLabsSessionIsCancelled(test -> {
            Run run = tokenClaimsHeldBeforeTheirFirstTake();
            lockJob(test, run, 4);
            run.step(CONSUMER_1);
            assertTrue(Poll.eventually(WAIT, () -> waitsForALock(test, run, "consumer-1")),
                    "consumer-1's claim waits for job 4");
            lockJob(test, run, 1);
            return run;
        }, "claim");
    }

    /**
     * A mark deadlocks too: consumer-1's mark locks its batch in id order and waits for its last
     * job, which the test holds while it asks for the first. The mark waited first, so its check
     * cancels it (40P01); it marked nothing, the consumer says so and marks again, and the run
     * sends every job once. (Seen in the wild with a claim in the test's place.)
     */
    @Test
    void aMarkCancelledAsADeadlockIsMarkedAgainAndEveryJobIsSentOnce() throws Exception {
        theLabsSessionIsCancelled(test -> {
            Run run = tokenClaimsHeldBeforeTheirFirstTake();
            // Consumer-1 stays held where it is (a plan without that breakpoint would let it go
            // before the step, and the step would then release it from its mark).
            run.gates().setPlan(GatePlan.NONE.with(JobQueueLab.BEFORE_MARK.id(), CONSUMER_1, GateRule.BREAKPOINT)
                    .with(JobQueueLab.BEFORE_TAKE.id(), CONSUMER_1, GateRule.BREAKPOINT)
                    .with(JobQueueLab.BEFORE_TAKE.id(), CONSUMER_2, GateRule.BREAKPOINT));
            run.step(CONSUMER_1);
            assertEquals(JobQueueLab.BEFORE_MARK, run.gates().awaitSettled(CONSUMER_1, WAIT));
            List<Long> batch = taken(run, CONSUMER_1).stream().sorted().toList();
            assertEquals(4, batch.size(), "consumer-1's batch: " + batch);
            lockJob(test, run, Math.toIntExact(batch.get(3)));
            run.step(CONSUMER_1);
            assertTrue(Poll.eventually(WAIT, () -> waitsForALock(test, run, "consumer-1")),
                    "consumer-1's mark waits for its last job");
            lockJob(test, run, Math.toIntExact(batch.get(0)));
            return run;
        }, "mark");
    }

    /**
     * Makes a deadlock between the test's session and a consumer's with {@code deadlock} (which
     * returns once the test waits for the consumer, or the wait ended), and checks the consumer's
     * {@code statement} was the one cancelled and sent again. PostgreSQL cancels the session whose
     * deadlock check runs first, one check per wait, {@code deadlock_timeout} after the wait began:
     * the consumer waited first, and the test's session checks only after 10 s where the server
     * lets it say so; still, on a machine so loaded that the test's wait began after the
     * consumer's one check, the test's session is the one cancelled, and the test tries again on
     * a new run (at most three times, each said).
     */
    private static void theLabsSessionIsCancelled(Deadlock deadlock, String statement) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Run run;
            try (Connection test = TestServers.connect()) {
                checkingLate(test);
                test.setAutoCommit(false);
                try {
                    run = deadlock.make(test);
                } catch (SQLException e) {
                    if (!"40P01".equals(e.getSQLState()) || attempt == 3) {
                        throw e;
                    }
                    System.err.println("attempt " + attempt + ": PostgreSQL cancelled the test's session, not the "
                            + "consumer's (its check ran before the test waited): trying again on a new run");
                    continue;
                }
                Poll.until("consumer-1 noted the deadlock; its session: " + waitsOf(test, run, "consumer-1"),
                        () -> count(run, EventKind.RETRY, CONSUMER_1) >= 1);
                test.rollback();
            }
            sentAgainAndEveryJobOnce(run, statement);
            return;
        }
    }

    /** The test's side of a deadlock: returns the run once the test's session waits for a consumer's. */
    @FunctionalInterface
    private interface Deadlock {
        Run make(Connection test) throws Exception;
    }

    /** The test's session checks for deadlocks after 10 s, where the server lets it (a superuser may). */
    private static void checkingLate(Connection test) throws SQLException {
        try (Statement set = test.createStatement()) {
            set.execute("SET deadlock_timeout = '10s'");
        } catch (SQLException e) {
            if (!"42501".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    /** What the session of {@code run}'s worker {@code name} waits for now, as PostgreSQL says. */
    private static String waitsOf(Connection test, Run run, String name) throws Exception {
        try (PreparedStatement ps = test.prepareStatement("SELECT coalesce(wait_event_type || ':' || wait_event, "
                + "'not waiting') || ', ' || state || ', blocked by ' || pg_blocking_pids(pid)::text "
                + "FROM pg_stat_activity WHERE application_name = ? AND pid = ANY(?)")) {
            ps.setString(1, "racelab:" + name);
            ps.setArray(2, test.createArrayOf("int4", PgProbe.pidsOf(run).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "none";
            }
        }
    }

    /**
     * Once consumer-1 noted that PostgreSQL cancelled its {@code statement} as a deadlock, the run
     * goes on unheld and ends safe: every job sent once, none lost, no worker failed.
     */
    private static void sentAgainAndEveryJobOnce(Run run, String statement) throws Exception {
        run.gates().setPlan(GatePlan.NONE);
        Outcome outcome = run.awaitOutcome(WAIT);

        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(8L, outcome.metrics().get("emailsSent"));
        assertEquals(0L, outcome.metrics().get("duplicateEmails"));
        assertEquals(0L, outcome.metrics().get("lostJobs"));
        Event retry = run.recorder().snapshot().stream()
                .filter(e -> e.kind() == EventKind.RETRY && e.actor() == run.workerActor(CONSUMER_1))
                .findFirst().orElseThrow();
        assertTrue(retry.subject().startsWith("deadlock: PostgreSQL cancelled this " + statement), retry.subject());
        assertTrue(run.recorder().snapshot().stream().noneMatch(e -> e.kind() == EventKind.ERROR),
                "no worker failed");
    }

    /**
     * A request-token run of two consumers, each held at its first claim, once the producer has
     * added its 8 jobs and consumer-1 stands at its gate.
     */
    private Run tokenClaimsHeldBeforeTheirFirstTake() throws Exception {
        GatePlan hold = GatePlan.NONE.with(JobQueueLab.BEFORE_TAKE.id(), CONSUMER_1, GateRule.BREAKPOINT)
                .with(JobQueueLab.BEFORE_TAKE.id(), CONSUMER_2, GateRule.BREAKPOINT);
        Run run = start(lab.defaults().withStrategy("request-token").withWorkers(3).withOps(1)
                .with(JobQueueLab.SEND_MS, 0).withGates(hold));
        assertEquals(JobQueueLab.BEFORE_TAKE, run.gates().awaitSettled(CONSUMER_1, WAIT));
        Poll.until("the producer added its 8 jobs", () -> count(run, EventKind.JOB_ADDED, 0) == 8);
        return run;
    }

    /** Locks job {@code id} of {@code run} in the test's open transaction (waiting for it if need be). */
    private static void lockJob(Connection test, Run run, int id) throws Exception {
        try (PreparedStatement lock = test.prepareStatement(
                "SELECT id FROM racelab.email_jobs WHERE run_id = ? AND id = ? FOR UPDATE")) {
            lock.setString(1, run.id());
            lock.setInt(2, id);
            lock.executeQuery().close();
        }
    }

    /** The lab's view of a run, fed its record as the window feeds it. */
    private LabView view(Run run) {
        LabView view = lab.view(run.record().header());
        run.recorder().snapshot().forEach(view::accept);
        return view;
    }

    /** The texts of the lab's picture of a run. */
    private List<String> picture(Run run) {
        RecordingSketch sketch = new RecordingSketch(600, 400);
        view(run).draw(sketch);
        return sketch.texts();
    }

    /** The values of the panel rows called {@code label}. */
    private List<String> panel(Run run, String label) {
        return view(run).panels().stream().filter(Panel.Values.class::isInstance)
                .flatMap(p -> ((Panel.Values) p).rows().stream()).filter(row -> row.label().equals(label))
                .map(Panel.Value::value).toList();
    }

    /**
     * Whether the session of {@code run}'s worker {@code name} waits for a lock now, as PostgreSQL
     * says (its own sessions only: other tests may share the server).
     */
    private static boolean waitsForALock(Connection test, Run run, String name) throws Exception {
        try (PreparedStatement ps = test.prepareStatement("SELECT count(*) FROM pg_stat_activity "
                + "WHERE application_name = ? AND wait_event_type = 'Lock' AND pid = ANY(?)")) {
            ps.setString(1, "racelab:" + name);
            ps.setArray(2, test.createArrayOf("int4", PgProbe.pidsOf(run).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    private static long count(Run run, EventKind kind, int worker) {
        int actor = run.workerActor(worker);
        return run.recorder().snapshot().stream().filter(e -> e.kind() == kind && e.actor() == actor).count();
    }

    private static List<Long> taken(Run run, int worker) {
        int actor = run.workerActor(worker);
        return run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.JOB_TAKEN && e.actor() == actor)
                .map(Event::value).toList();
    }

    private static boolean failed(Run run, int worker) {
        int actor = run.workerActor(worker);
        return run.recorder().snapshot().stream()
                .anyMatch(e -> e.kind() == EventKind.STATE && e.actor() == actor && e.state() == ActorState.FAILED);
    }

    /**
     * Consumer-1 crashes right after its first claim; consumer-2 waits at its first gate until it
     * has, so consumer-1 surely claims something. Two consumers, one round of four each.
     */
    private Run crashAfterClaim(String strategy, int leaseMs) throws Exception {
        Run run = start(lab.defaults().withStrategy(strategy).withWorkers(3).withOps(1)
                .with(JobQueueLab.SEND_MS, 0).with(JobQueueLab.LEASE_MS, leaseMs)
                .withGates(GatePlan.NONE.with(JobQueueLab.CRASH.id(), CONSUMER_1, GateRule.fixed(1))
                        .with(JobQueueLab.BEFORE_TAKE.id(), CONSUMER_2, GateRule.BREAKPOINT)));
        Poll.until("consumer-1 crashed", () -> failed(run, CONSUMER_1));
        run.gates().setPlan(GatePlan.NONE);
        return run;
    }

    @ParameterizedTest
    @ValueSource(strings = {"request-token", "skip-locked"})
    void aConsumerThatCrashesAfterClaimingOrphansItsJobsWithoutALeaseAndNoneWithOne(String strategy) throws Exception {
        Run withoutLease = crashAfterClaim(strategy, 0);
        Outcome stuck = withoutLease.awaitOutcome(WAIT);
        long claimed = taken(withoutLease, CONSUMER_1).size();
        assertTrue(claimed >= 1, "consumer-1 claimed before it crashed");
        assertEquals(Verdict.STUCK, stuck.verdict(), stuck.banner());
        assertEquals(claimed, stuck.violations().get(JobQueueScenario.ORPHANED));
        assertEquals(claimed + (claimed == 1 ? " job orphaned: consumer-1 crashed holding it"
                : " jobs orphaned: consumer-1 crashed holding them"), stuck.headline());
        assertEquals(8 - claimed, stuck.metrics().get("emailsSent").longValue(), "everything else went out once");

        List<String> picture = picture(withoutLease);
        assertTrue(picture.contains("duplicate emails: 0 · orphaned: " + claimed), picture.toString());
        assertEquals(claimed, picture.stream().filter("c1✕"::equals).count(), "an orphan cell per job consumer-1 held");
        assertEquals(List.of(String.valueOf(claimed)), panel(withoutLease, "orphaned"));

        Run withLease = crashAfterClaim(strategy, 100);
        Outcome safe = withLease.awaitOutcome(WAIT);
        long reclaimed = taken(withLease, CONSUMER_1).size();
        assertEquals(Verdict.SAFE, safe.verdict(), safe.banner() + " " + safe.explanation());
        assertEquals(0L, safe.metrics().get("orphanedJobs"));
        assertEquals(reclaimed, safe.metrics().get("reclaimedJobs").longValue(), "consumer-2 took them over");
        assertEquals(8L, safe.metrics().get("emailsSent"));
        assertEquals(8, picture(withLease).stream().filter("✓"::equals).count(), "every cell sent once");
        assertEquals(List.of(String.valueOf(reclaimed)), panel(withLease, "taken over (lease ran out)"));
        assertEquals(List.of("0"), panel(withLease, "orphaned"));
    }

    /**
     * Consumer-1 claims, sends, and halts before its mark, alive but slow; consumer-2 waits at its
     * first gate until then. With a 100 ms lease consumer-2 takes the claim over and sends the
     * jobs; then consumer-1 goes on to its mark.
     */
    private Outcome slowConsumer(String strategy, boolean conditionalMark) throws Exception {
        Run run = start(lab.defaults().withStrategy(strategy).withWorkers(3).withOps(1)
                .with(JobQueueLab.SEND_MS, 0).with(JobQueueLab.LEASE_MS, 100)
                .with(JobQueueLab.CONDITIONAL_MARK, conditionalMark)
                .withGates(GatePlan.NONE.with(JobQueueLab.BEFORE_MARK.id(), CONSUMER_1, GateRule.BREAKPOINT)
                        .with(JobQueueLab.BEFORE_TAKE.id(), CONSUMER_2, GateRule.BREAKPOINT)));
        assertEquals(JobQueueLab.BEFORE_MARK, run.gates().awaitSettled(CONSUMER_1, WAIT));
        List<Long> slow = taken(run, CONSUMER_1);
        run.gates().setPlan(GatePlan.NONE.with(JobQueueLab.BEFORE_MARK.id(), CONSUMER_1, GateRule.BREAKPOINT));
        Poll.until("consumer-2 took over and sent consumer-1's jobs", () -> {
            List<Long> sentBy2 = run.recorder().snapshot().stream()
                    .filter(e -> e.kind() == EventKind.JOB_SENT && e.actor() == run.workerActor(CONSUMER_2))
                    .map(Event::value).toList();
            return sentBy2.containsAll(slow);
        });
        run.gates().setPlan(GatePlan.NONE);
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals((long) slow.size(), outcome.metrics().get("reclaimedJobs"), outcome.explanation());
        assertEquals(0L, outcome.metrics().get("lostJobs"));
        // The panel counts what the verdict counts.
        assertEquals(List.of(String.valueOf(outcome.metrics().get("duplicateEmails"))), panel(run, "duplicate emails"));
        assertEquals(List.of(String.valueOf(outcome.metrics().get("sendsCalledOff"))), panel(run, "sends called off"));
        return outcome;
    }

    @ParameterizedTest
    @ValueSource(strings = {"request-token", "skip-locked"})
    void aSlowConsumerTakenOverSendsTwiceUnlessItsMarkIsConditional(String strategy) throws Exception {
        Outcome unconditional = slowConsumer(strategy, false);
        long reclaimed = unconditional.metrics().get("reclaimedJobs").longValue();
        assertEquals(Verdict.RACE, unconditional.verdict(), unconditional.banner());
        assertEquals(reclaimed, unconditional.violations().get(JobQueueScenario.DUPLICATES),
                "each job it had been sending went out a second time");
        assertEquals(8 + reclaimed, unconditional.metrics().get("emailsSent").longValue());

        Outcome conditional = slowConsumer(strategy, true);
        assertEquals(Verdict.SAFE, conditional.verdict(), conditional.banner() + " " + conditional.explanation());
        assertEquals(conditional.metrics().get("reclaimedJobs"), conditional.metrics().get("sendsCalledOff"),
                "the slow consumer's mark found the claims were no longer its own");
        assertEquals(8L, conditional.metrics().get("emailsSent"));
    }
}
