package dev.racelab.labs.jobqueue;

import dev.racelab.backend.PgSessions;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.PgFixture;
import dev.racelab.labs.support.Survivors;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run of the job queue, wired: the first worker is the {@link JobProducer}, which adds its
 * jobs round by round at its rate; every other is a {@link JobConsumer}, which takes batches the
 * strategy's way, sends them and marks them sent, until the round it is in is settled.
 *
 * <p>The oracle ({@link JobQueueVerdict}) reads the table and the outbox: an email sent more than
 * once is a duplicate (RACE); a job claimed by a consumer that crashed, with no lease to let anyone
 * take it over, is orphaned (STUCK); a job that was never sent although nothing held it is lost
 * (RACE). Each duplicate is marked ✕ where its email went out (the mark tells the consumer how
 * often the job has been marked, under its row lock), each orphan where its consumer crashed.
 *
 * <p>What the workers know of the jobs ({@link JobBook}) only decides when a consumer's round is
 * over; the verdict comes from the server.
 */
final class JobQueueScenario implements Scenario {

    static final String DUPLICATES = "duplicate emails";
    static final String ORPHANED = "orphaned jobs";
    static final String LOST = "lost jobs";
    static final String QUEUE = "email_jobs";
    static final String QUEUED = "queued";
    static final String CLAIMED = "claimed";
    static final String SENT = "sent";
    static final String OUTBOX = "emails in outbox";

    static final SqlFile SQL = SqlFile.load(JobQueueScenario.class, "jobqueue.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("job-queue", 1, SQL);
    /** Up to 64 consumers and the producer each have a session of their own. */
    private static final PgSessions.Mode SESSIONS = PgSessions.Mode.dedicatedUpTo(65, 32);

    private final RunSetup setup;
    private final PgFixture pg;
    private final long producerPeriodNanos;
    private final JobConsumer.Rules rules;
    private final JobBook book;
    private final Survivors survivors;
    /** The run's claim tokens, shared by every consumer. */
    private final AtomicLong tokens = new AtomicLong();
    /** What the consumers count for the verdict. */
    private final JobQueueVerdict.Counts counts = new JobQueueVerdict.Counts();
    private final JobQueueVerdict verdict;

    JobQueueScenario(Postgres postgres, JobQueueStrategy strategy, RunSetup setup) throws SQLException {
        this.setup = setup;
        int batch = setup.get(JobQueueLab.BATCH);
        int perRound = (setup.workers() - 1) * batch;
        long planned = JobQueueLab.jobs(setup.workers(), setup.ops(), batch);
        if (planned > JobQueueLab.MOST_JOBS) {
            throw new IllegalArgumentException("job-queue adds at most " + JobQueueLab.MOST_JOBS + " jobs in a run, not "
                    + planned + " (consumers × ops × batch): fewer ops or a smaller batch");
        }
        int jobs = (int) planned;
        long sendMillis = setup.get(JobQueueLab.SEND_MS);
        this.producerPeriodNanos = TimeUnit.SECONDS.toNanos(1) / setup.get(JobQueueLab.PRODUCER_RATE);
        int leaseMs = strategy.claims() ? setup.get(JobQueueLab.LEASE_MS) : 0;
        boolean conditionalMark = strategy.claims() && setup.get(JobQueueLab.CONDITIONAL_MARK);
        this.rules = new JobConsumer.Rules(strategy, setup.runId(), batch, perRound, leaseMs, sendMillis,
                conditionalMark);
        this.book = new JobBook(jobs, setup.workers());
        this.survivors = new Survivors(setup.workers());
        this.pg = new PgFixture(postgres, setup, TABLES, SESSIONS);
        this.verdict = new JobQueueVerdict(strategy, setup, jobs, leaseMs, counts);
    }

    @Override
    public LabWorker worker(WorkerContext context) throws SQLException {
        PgSessions.Session session = pg.session(context);
        return context.index() == 0
                ? new JobProducer(context, session, setup.runId(), rules.perRound(), producerPeriodNanos, book,
                        survivors)
                : new JobConsumer(context, session, rules, book, tokens, counts, survivors);
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(pg.lockObserver(),
                pg.valueObserver(QUEUE, "observe", List.of(QUEUED, CLAIMED, SENT, OUTBOX)));
    }

    @Override
    public Outcome judge(RunSummary summary) throws SQLException {
        return verdict.outcome(pg.admin(), summary, !summary.stoppedByUser() && !summary.timedOut());
    }

    /** The run made no progress for its timeout: what is left, and why nobody can finish it. */
    @Override
    public Outcome diagnose(RunSummary summary) throws SQLException {
        Outcome found = verdict.outcome(pg.admin(), summary, false);
        if (found.verdict() == Verdict.RACE) {
            return found;
        }
        String why = rules.leaseMs() > 0 && !counts.crashed().isEmpty()
                ? " The lease (" + rules.leaseMs() + " ms) had not let anyone take the crashed consumers' claims over "
                        + "by then."
                : "";
        return new Outcome(Verdict.STUCK, "no progress for " + summary.timeout().toSeconds() + " s",
                found.explanation() + why, found.violations(), found.metrics(), List.of());
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg);
    }
}
