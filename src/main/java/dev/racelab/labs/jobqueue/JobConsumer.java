package dev.racelab.labs.jobqueue;

import dev.racelab.backend.PgSessions;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.Survivors;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.racelab.labs.jobqueue.JobQueueScenario.DUPLICATES;
import static dev.racelab.labs.jobqueue.JobQueueScenario.ORPHANED;
import static dev.racelab.labs.jobqueue.JobQueueScenario.QUEUE;
import static dev.racelab.labs.jobqueue.JobQueueScenario.SQL;

/**
 * A consumer: takes a batch the strategy's way, sends it, marks it sent, again and again until
 * its round is settled ({@link JobBook#settled}); a crash at the crash gate takes it out of the
 * run for good, holding whatever it had taken.
 *
 * <p>Runs on its own worker thread with its own session. What it shares with the other workers
 * is handed to it: the {@link JobBook}, the run's claim tokens, the {@linkplain
 * JobQueueVerdict.Counts counts} the verdict reads, and the {@link Survivors} it reports to once,
 * when it is done or out.
 */
final class JobConsumer implements LabWorker {

    /** How every consumer of a run works, fixed when the run is set up; {@code leaseMs} 0: no lease. */
    record Rules(JobQueueStrategy strategy, String runId, int batch, int perRound, int leaseMs, long sendMillis,
                 boolean conditionalMark) {
    }

    /** How long a consumer that found nothing to take waits before it looks again. */
    private static final long POLL_MILLIS = 5;
    private static final String DEADLOCK_DETECTED = "40P01";

    private final WorkerContext context;
    private final PgSessions.Session session;
    private final Rules rules;
    private final JobBook book;
    /** The run's claim tokens, shared by all consumers: each claim takes the next. */
    private final AtomicLong tokens;
    private final JobQueueVerdict.Counts counts;
    private final Survivors survivors;
    /** Crashed: out of the run for good; later operations do nothing. */
    private boolean out;

    JobConsumer(WorkerContext context, PgSessions.Session session, Rules rules, JobBook book, AtomicLong tokens,
                JobQueueVerdict.Counts counts, Survivors survivors) {
        this.context = context;
        this.session = session;
        this.rules = rules;
        this.book = book;
        this.tokens = tokens;
        this.counts = counts;
        this.survivors = survivors;
    }

    @Override
    public void operation(int n) throws Exception {
        int upTo = (n + 1) * rules.perRound();
        while (!out && !book.settled(upTo, rules.leaseMs() > 0) && !context.stopping()) {
            Batch taken = take();
            if (out) {
                return;
            }
            if (taken == null) {
                idle();
            } else if (!taken.ids.isEmpty()) {
                send(taken);
                mark(taken);
            }
        }
        if (!out && context.currentState() != ActorState.RUNNING) {
            context.state(ActorState.RUNNING);
        }
    }

    /** Nothing to take yet: waits a little, on its lane as one stretch of waiting. */
    private void idle() throws InterruptedException {
        if (context.currentState() != ActorState.WAITING) {
            context.state(ActorState.WAITING, "jobs to take");
        }
        context.backOff(TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
    }

    /** A short lane state while talking to the server; left alone while waiting, so polls stay quiet. */
    private void busy(String what) {
        if (context.currentState() != ActorState.WAITING) {
            context.state(ActorState.RUNNING, what);
        }
    }

    /**
     * The strategy's way to get a batch: the jobs to send (perhaps none, after a claim that
     * lost every job it found), or null when there was nothing to take.
     */
    private Batch take() throws Exception {
        context.gate(JobQueueLab.BEFORE_TAKE);
        return switch (rules.strategy()) {
            case SELECT_THEN_UPDATE -> selectOldest();
            case REQUEST_TOKEN -> claimByToken();
            case SKIP_LOCKED -> claimSkipLocked();
        };
    }

    private Batch selectOldest() throws Exception {
        busy("selecting the oldest unsent jobs");
        List<Integer> ids;
        try (PgSessions.Lease lease = session.borrow();
             PreparedStatement ps = lease.connection().prepareStatement(SQL.get("select-unsent"))) {
            ps.setString(1, rules.runId());
            ps.setInt(2, rules.batch());
            ids = JobClaims.ids(ps);
        }
        if (ids.isEmpty()) {
            return null;
        }
        context.state(ActorState.RUNNING, "selected jobs " + JobQueueVerdict.ids(ids));
        for (int id : ids) {
            context.mark(EventKind.JOB_TAKEN, "selected; nothing in the table says so", id);
        }
        if (crashes(new Batch(0, ids))) {
            return null;
        }
        context.gate(JobQueueLab.AFTER_SELECT);
        return new Batch(0, ids);
    }

    private Batch claimByToken() throws Exception {
        busy("claiming jobs");
        long token = tokens.incrementAndGet();
        long free;
        List<Integer> claimed = new ArrayList<>();
        try (PgSessions.Lease lease = session.borrow();
             PreparedStatement ps = lease.connection().prepareStatement(SQL.get("claim-by-token"))) {
            bindClaim(ps, token);
            try (ResultSet rs = executeClaim(ps)) {
                if (rs == null) {
                    return new Batch(token, claimed);
                }
                rs.next();
                free = rs.getLong(1);
                Array ids = rs.getArray(2);
                if (ids != null) {
                    for (Integer id : (Integer[]) ids.getArray()) {
                        claimed.add(id);
                    }
                }
            }
        }
        if (free == 0) {
            return null;
        }
        claimed(token, claimed);
        if (claimed.size() < free) {
            counts.shortBatches().increment();
            context.mark(EventKind.SHORT_BATCH, "found " + free + " free, got " + claimed.size()
                    + ": others claimed the rest first", claimed.size());
        }
        if (claimed.isEmpty()) {
            return new Batch(token, claimed);
        }
        context.gate(JobQueueLab.AFTER_CLAIM);
        if (crashes(new Batch(token, claimed))) {
            return null;
        }
        List<Integer> mine;
        try (PgSessions.Lease lease = session.borrow();
             PreparedStatement ps = lease.connection().prepareStatement(SQL.get("select-by-token"))) {
            ps.setString(1, rules.runId());
            ps.setLong(2, token);
            mine = JobClaims.ids(ps);
        }
        context.gate(JobQueueLab.AFTER_SELECT);
        return new Batch(token, mine);
    }

    /**
     * Runs the token claim. Two claims can wait for each other's rows: each locks the free jobs
     * it found as the plan reaches them, and the plan's order is not always the jobs' order.
     * PostgreSQL then cancels one (40P01, deadlock detected), and its claim, a statement of its
     * own, took nothing: as a plain program would have to, the consumer notes it and claims
     * again. Answers null for such a claim.
     */
    private ResultSet executeClaim(PreparedStatement ps) throws SQLException {
        try {
            return ps.executeQuery();
        } catch (SQLException e) {
            cancelledAsDeadlock(e, "claim, which waited for another claim's jobs while that one waited for its "
                    + "own (40P01); it took nothing");
            return null;
        }
    }

    /**
     * Runs the mark until PostgreSQL lets it through. A mark locks its batch in id order, and
     * another session can hold one of those jobs while it waits for one the mark holds (seen with
     * a claim in that place); PostgreSQL then cancels one of the two (40P01). A mark cancelled so
     * marked nothing: as a plain program would have to, the consumer notes it and marks again.
     */
    private ResultSet executeMark(PreparedStatement ps) throws SQLException {
        while (true) {
            try {
                return ps.executeQuery();
            } catch (SQLException e) {
                cancelledAsDeadlock(e, "mark, which waited for a job of its batch while the session holding "
                        + "that job waited for it (40P01); it marked nothing");
            }
        }
    }

    /**
     * Rethrows {@code e} unless PostgreSQL cancelled the statement as a deadlock; then the lane says
     * which statement it was ({@code what}) and that the consumer sends it again.
     */
    private void cancelledAsDeadlock(SQLException e, String what) throws SQLException {
        if (!DEADLOCK_DETECTED.equals(e.getSQLState())) {
            throw e;
        }
        context.mark(EventKind.RETRY, "deadlock: PostgreSQL cancelled this " + what, 0);
    }

    private Batch claimSkipLocked() throws Exception {
        busy("claiming jobs, skipping locked ones");
        long token = tokens.incrementAndGet();
        List<Integer> claimed;
        try (PgSessions.Lease lease = session.borrow();
             PreparedStatement ps = lease.connection().prepareStatement(SQL.get("claim-skip-locked"))) {
            bindClaim(ps, token);
            claimed = JobClaims.ids(ps);
        }
        if (claimed.isEmpty()) {
            return null;
        }
        claimed.sort(null);
        claimed(token, claimed);
        context.gate(JobQueueLab.AFTER_CLAIM);
        if (crashes(new Batch(token, claimed))) {
            return null;
        }
        context.gate(JobQueueLab.AFTER_SELECT);
        return new Batch(token, claimed);
    }

    private void bindClaim(PreparedStatement ps, long token) throws SQLException {
        JobClaims.bind(ps, rules.runId(), token, context.name(), rules.leaseMs(), rules.batch());
    }

    /** Records a claim that went through: its token, and each job, noting any it took over. */
    private void claimed(long token, List<Integer> ids) {
        if (ids.isEmpty()) {
            context.mark(EventKind.TOKEN, "request token", token);
            return;
        }
        context.state(ActorState.RUNNING, "claim #" + token + ": jobs " + JobQueueVerdict.ids(ids));
        context.mark(EventKind.TOKEN, "request token", token);
        for (int id : ids) {
            int before = book.holder.getAndSet(id, context.index());
            context.mark(EventKind.JOB_TAKEN, before == 0 || before == context.index() ? "claim #" + token
                    : "claim #" + token + ", taken over from " + JobQueueLab.CONSUMER + "-" + before
                            + " (its lease ran out)", id);
        }
    }

    /** At the crash gate: if the fault is armed for this consumer, crashes here and says so. */
    private boolean crashes(Batch held) throws Exception {
        if (!context.fault(JobQueueLab.CRASH)) {
            return false;
        }
        out = true;
        book.crashed.set(context.index(), 1);
        counts.crashed().add(context.name());
        boolean orphans = rules.strategy().claims() && rules.leaseMs() == 0;
        if (orphans) {
            for (int ignored : held.ids) {
                context.violation(ORPHANED, 1);
            }
        }
        context.state(ActorState.FAILED, !rules.strategy().claims()
                ? "crashed; it had claimed nothing, so its jobs are still there for others"
                : "crashed holding claim #" + held.token + " (jobs " + JobQueueVerdict.ids(held.ids) + ")"
                        + (orphans ? ": nothing will take them back" : " until its lease runs out"));
        session.abort();
        survivors.done();
        survivors.outlast(context, () -> { });
        return true;
    }

    /** Sends each email of the batch: the slow part, done once per job if all goes well. */
    private void send(Batch taken) throws InterruptedException {
        for (int id : taken.ids) {
            context.state(ActorState.SENDING, "job " + id);
            if (rules.sendMillis() > 0) {
                context.takeTime(TimeUnit.MILLISECONDS.toNanos(rules.sendMillis()));
            }
        }
    }

    /**
     * The final mark: marks the batch sent and writes its emails to the outbox in one
     * statement. Each job comes back with how often it has now been marked; more than once is
     * a duplicate email. With the conditional mark, jobs whose claim is no longer this
     * consumer's come back not at all: their emails are called off.
     */
    private void mark(Batch taken) throws Exception {
        context.gate(JobQueueLab.BEFORE_MARK);
        context.state(ActorState.RUNNING, "marking jobs " + JobQueueVerdict.ids(taken.ids) + " sent");
        List<Integer> sent = new ArrayList<>();
        try (PgSessions.Lease lease = session.borrow();
             PreparedStatement ps = lease.connection().prepareStatement(SQL.get("mark-sent"))) {
            ps.setString(1, rules.runId());
            ps.setArray(2, lease.connection().createArrayOf("integer", taken.ids.toArray()));
            ps.setString(3, context.name());
            if (rules.strategy().claims()) {
                ps.setLong(4, taken.token);
            } else {
                ps.setNull(4, Types.BIGINT);
            }
            ps.setBoolean(5, rules.conditionalMark());
            try (ResultSet rs = executeMark(ps)) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    int marks = rs.getInt(2);
                    sent.add(id);
                    book.marks.set(id, marks);
                    Event sentNow = context.mark(EventKind.JOB_SENT, QUEUE, id);
                    if (marks == 1 && sentNow != null) {
                        book.firstSend.set(id, sentNow.seq() + 1);
                    } else if (marks > 1) {
                        context.violation(DUPLICATES, 1);
                        pointAtFirstSend(id);
                    }
                }
            }
        }
        List<Integer> calledOff = new ArrayList<>(taken.ids);
        calledOff.removeAll(sent);
        if (!calledOff.isEmpty()) {
            counts.refused().add(calledOff.size());
            for (int ignored : calledOff) {
                context.mark(EventKind.WRITE_REJECTED, "mark of claim #" + taken.token, taken.token);
            }
            context.mark(EventKind.NOTE, "jobs " + JobQueueVerdict.ids(calledOff) + " are another consumer's claim now: "
                    + "not marked, not sent", calledOff.size());
        }
    }

    /**
     * Points this duplicate email at the job's first one, so the timeline draws an arrow from
     * the ✕ back to it. The first send committed before this one (the mark waited for its row
     * lock); one whose event is not recorded yet (its consumer has not got that far) goes
     * without an arrow.
     */
    private void pointAtFirstSend(int id) {
        long seqPlusOne = book.firstSend.get(id);
        if (seqPlusOne > 0) {
            context.mark(EventKind.OVERWROTE, QUEUE, seqPlusOne - 1);
        }
    }

    @Override
    public void abort() {
        session.abort();
    }

    @Override
    public void close() throws SQLException {
        if (!out) {
            survivors.done();
        }
        session.close();
    }

    /** Jobs a consumer took, and the token of its claim (0 when it claimed nothing). */
    private record Batch(long token, List<Integer> ids) {
    }
}
