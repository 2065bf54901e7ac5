package dev.racelab.labs.jobqueue;

import dev.racelab.backend.PgSessions;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
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

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * One run of the job queue: the producer adds its jobs round by round at its rate; each consumer
 * takes batches the strategy's way, sends them and marks them sent, until the round it is in is
 * settled.
 *
 * <p>The oracle reads the table and the outbox: an email sent more than once is a duplicate
 * (RACE); a job claimed by a consumer that crashed, with no lease to let anyone take it over, is
 * orphaned (STUCK); a job that was never sent although nothing held it is lost (RACE). Each
 * duplicate is marked ✕ where its email went out (the mark tells the consumer how often the job
 * has been marked, under its row lock), each orphan where its consumer crashed.
 *
 * <p>What the workers know of the jobs ({@link Book}) only decides when a consumer's round is
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

    private static final SqlFile SQL = SqlFile.load(JobQueueScenario.class, "jobqueue.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("job-queue", 1, SQL);
    /** Up to 64 consumers and the producer each have a session of their own. */
    private static final PgSessions.Mode SESSIONS = PgSessions.Mode.dedicatedUpTo(65, 32);
    /** How long a consumer that found nothing to take waits before it looks again. */
    private static final long POLL_MILLIS = 5;

    private final JobQueueStrategy strategy;
    private final RunSetup setup;
    private final PgFixture pg;
    private final int batch;
    private final int perRound;
    private final int jobs;
    private final long sendMillis;
    private final long producerPeriodNanos;
    private final int leaseMs;
    private final boolean conditionalMark;
    private final Book book;
    private final Survivors survivors;
    private final AtomicLong tokens = new AtomicLong();
    private static final String DEADLOCK_DETECTED = "40P01";
    private final LongAdder shortBatches = new LongAdder();
    private final LongAdder refused = new LongAdder();
    /** Names of the consumers that crashed. */
    private final Set<String> crashed = ConcurrentHashMap.newKeySet();

    JobQueueScenario(Postgres postgres, JobQueueStrategy strategy, RunSetup setup) throws SQLException {
        this.strategy = strategy;
        this.setup = setup;
        this.batch = setup.get(JobQueueLab.BATCH);
        this.perRound = (setup.workers() - 1) * batch;
        long planned = JobQueueLab.jobs(setup.workers(), setup.ops(), batch);
        if (planned > JobQueueLab.MOST_JOBS) {
            throw new IllegalArgumentException("job-queue adds at most " + JobQueueLab.MOST_JOBS + " jobs in a run, not "
                    + planned + " (consumers × ops × batch): fewer ops or a smaller batch");
        }
        this.jobs = (int) planned;
        this.sendMillis = setup.get(JobQueueLab.SEND_MS);
        this.producerPeriodNanos = TimeUnit.SECONDS.toNanos(1) / setup.get(JobQueueLab.PRODUCER_RATE);
        this.leaseMs = strategy.claims() ? setup.get(JobQueueLab.LEASE_MS) : 0;
        this.conditionalMark = strategy.claims() && setup.get(JobQueueLab.CONDITIONAL_MARK);
        this.book = new Book(jobs, setup.workers());
        this.survivors = new Survivors(setup.workers());
        this.pg = new PgFixture(postgres, setup, TABLES, SESSIONS);
    }

    @Override
    public LabWorker worker(WorkerContext context) throws SQLException {
        PgSessions.Session session = pg.session(context);
        return context.index() == 0 ? new Producer(context, session) : new Consumer(context, session);
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(pg.lockObserver(),
                pg.valueObserver(QUEUE, "observe", List.of(QUEUED, CLAIMED, SENT, OUTBOX)));
    }

    @Override
    public Outcome judge(RunSummary summary) throws SQLException {
        return outcome(summary, !summary.stoppedByUser() && !summary.timedOut());
    }

    /** The run made no progress for its timeout: what is left, and why nobody can finish it. */
    @Override
    public Outcome diagnose(RunSummary summary) throws SQLException {
        Outcome found = outcome(summary, false);
        if (found.verdict() == Verdict.RACE) {
            return found;
        }
        String why = leaseMs > 0 && !crashed.isEmpty()
                ? " The lease (" + leaseMs + " ms) had not let anyone take the crashed consumers' claims over by then."
                : "";
        return new Outcome(Verdict.STUCK, "no progress for " + summary.timeout().toSeconds() + " s",
                found.explanation() + why, found.violations(), found.metrics(), List.of());
    }

    /** Reads the table and the outbox; {@code complete}: the workers finished, so an unsent job is lost. */
    private Outcome outcome(RunSummary summary, boolean complete) throws SQLException {
        Tally tally = tally();
        Map<String, Long> violations = new LinkedHashMap<>();
        put(violations, DUPLICATES, tally.duplicates);
        put(violations, ORPHANED, tally.orphaned.size());
        long lost = complete ? tally.unsent.size() + (jobs - tally.added) : 0;
        put(violations, LOST, lost);
        // The rate as the picture shows it: from the same events, by the same rule.
        JobTable recorded = new JobTable(strategy.claims(), jobs);
        summary.recorder().drain(0, Integer.MAX_VALUE, recorded::accept);

        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("jobs", tally.added);
        metrics.put("emailsSent", tally.emails);
        metrics.put("duplicateEmails", tally.duplicates);
        metrics.put("jobsSentTwice", tally.sentTwice.size());
        metrics.put("orphanedJobs", tally.orphaned.size());
        metrics.put("lostJobs", lost);
        metrics.put("shortBatches", shortBatches.sum());
        metrics.put("reclaimedJobs", tally.reclaimed);
        metrics.put("sendsCalledOff", refused.sum());
        metrics.put("jobsPerSec", recorded.jobsPerSecond());

        String shares = shares(tally);
        String also = also(tally);
        if (tally.duplicates > 0) {
            return new Outcome(Verdict.RACE, count(tally.duplicates, "duplicate email") + ": "
                    + count(tally.sentTwice.size(), "job") + " sent more than once",
                    twice(tally) + " " + how() + orphanText(tally) + also + shares, violations, metrics, List.of());
        }
        if (!tally.orphaned.isEmpty()) {
            return new Outcome(Verdict.STUCK, count(tally.orphaned.size(), "job") + " orphaned: "
                    + String.join(", ", crashed) + " crashed holding " + (tally.orphaned.size() == 1 ? "it" : "them"),
                    orphanText(tally).strip() + " Without a lease nothing takes a claim back: set lease-ms." + also
                            + shares, violations, metrics, List.of());
        }
        if (lost > 0) {
            return new Outcome(Verdict.RACE, count(lost, "job") + " lost",
                    (tally.unsent.size() == 1 ? "Job " : "Jobs ") + ids(tally.unsent)
                            + " never went out, though nobody held " + (tally.unsent.size() == 1 ? "it." : "them.") + also + shares,
                    violations, metrics, List.of());
        }
        if (!complete) {
            return new Outcome(Verdict.SAFE, "no job sent twice so far",
                    tally.emails + " emails for " + tally.added + " jobs so far." + also + shares,
                    violations, metrics, List.of());
        }
        return new Outcome(Verdict.SAFE, "every job sent exactly once: " + tally.added + " jobs, "
                + recorded.jobsPerSecond() + " jobs/s",
                tally.emails + " emails for " + tally.added + " jobs." + also + shares, violations, metrics, List.of());
    }

    /** How jobs went out twice with this strategy, in one sentence for the explanation. */
    private String how() {
        return switch (strategy) {
            case SELECT_THEN_UPDATE -> "Consumers that selected the same oldest unsent jobs before any of them "
                    + "marked them sent each sent them.";
            case REQUEST_TOKEN, SKIP_LOCKED -> "A claim whose lease ran out while its consumer was still sending "
                    + "was taken over and sent by another; the slow consumer's mark did not check whose claim it "
                    + "was, and sent the job again.";
        };
    }

    private static String twice(Tally tally) {
        List<String> each = new ArrayList<>();
        for (Map.Entry<Integer, Long> job : tally.sentTwice.entrySet()) {
            if (each.size() == 6) {
                each.add("…");
                break;
            }
            each.add("job " + job.getKey() + " ×" + job.getValue());
        }
        String list = String.join(", ", each);
        return "Sent more than once: " + list + (list.endsWith("…") ? "" : ".");
    }

    private String orphanText(Tally tally) {
        if (tally.orphaned.isEmpty()) {
            return "";
        }
        boolean one = tally.orphaned.size() == 1;
        return (one ? " Job " : " Jobs ") + ids(tally.orphaned) + (one ? " stays" : " stay") + " claimed by "
                + String.join(", ", crashed) + ", which crashed after claiming " + (one ? "it." : "them.");
    }

    private String also(Tally tally) {
        StringBuilder text = new StringBuilder();
        if (strategy == JobQueueStrategy.REQUEST_TOKEN || shortBatches.sum() > 0) {
            text.append(' ').append(count(shortBatches.sum(), "short batch")).append(shortBatches.sum() == 1
                    ? " (a claim that got fewer jobs than it found free: others claimed them first)."
                    : " (claims that got fewer jobs than they found free: others claimed them first).");
        }
        if (tally.reclaimed > 0) {
            text.append(' ').append(count(tally.reclaimed, "job")).append(" taken over after a lease ran out.");
        }
        if (refused.sum() > 0) {
            text.append(' ').append(count(refused.sum(), "send")).append(" called off: the claim was another "
                    + "consumer's by the time of the mark.");
        }
        return text.toString();
    }

    private static String shares(Tally tally) {
        long total = tally.sentBy.values().stream().mapToLong(Long::longValue).sum();
        if (total == 0) {
            return "";
        }
        return " Sent by " + tally.sentBy.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue() + " (" + Math.round(100.0 * e.getValue() / total) + "%)")
                .collect(Collectors.joining(", ")) + ".";
    }

    /** What the server holds at the end. */
    private static final class Tally {
        int added;
        long emails;
        long duplicates;
        int reclaimed;
        /** Job → emails sent, for the jobs sent more than once. */
        final Map<Integer, Long> sentTwice = new TreeMap<>();
        final List<Integer> orphaned = new ArrayList<>();
        final List<Integer> unsent = new ArrayList<>();
        /** Consumer → emails it sent, in consumer order. */
        final Map<String, Long> sentBy = new TreeMap<>((a, b) -> Integer.compare(number(a), number(b)));
    }

    private Tally tally() throws SQLException {
        Tally tally = new Tally();
        for (int consumer = 1; consumer < setup.workers(); consumer++) {
            tally.sentBy.put(JobQueueLab.CONSUMER + "-" + consumer, 0L);
        }
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("jobs"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    int claims = rs.getInt(2);
                    String holder = rs.getString(3);
                    long emails = rs.getLong(5);
                    tally.added++;
                    tally.emails += emails;
                    if (emails > 1) {
                        tally.duplicates += emails - 1;
                        tally.sentTwice.put(id, emails);
                    }
                    if (claims > 1) {
                        tally.reclaimed++;
                    }
                    if (emails == 0) {
                        (holder != null && crashed.contains(holder) && leaseMs == 0 ? tally.orphaned : tally.unsent)
                                .add(id);
                    }
                }
            }
        }
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("sent-by"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    tally.sentBy.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return tally;
    }

    private static int number(String consumer) {
        int dash = consumer.lastIndexOf('-');
        try {
            return Integer.parseInt(consumer.substring(dash + 1));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    private static void put(Map<String, Long> map, String name, long n) {
        if (n > 0) {
            map.put(name, n);
        }
    }

    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : noun.endsWith("ch") ? "es" : "s");
    }

    /** "5, 6, 7 and 8", or the first few and how many more. */
    static String ids(List<Integer> ids) {
        if (ids.size() > 8) {
            return ids.subList(0, 8).stream().map(String::valueOf).collect(Collectors.joining(", "))
                    + " and " + (ids.size() - 8) + " more";
        }
        if (ids.size() == 1) {
            return String.valueOf(ids.get(0));
        }
        return ids.subList(0, ids.size() - 1).stream().map(String::valueOf).collect(Collectors.joining(", "))
                + " and " + ids.get(ids.size() - 1);
    }

    @Override
    public String explain(Throwable failure) {
        return pg.explain(failure).orElseGet(() -> Scenario.super.explain(failure));
    }

    @Override
    public void close() throws SQLException {
        pg.close();
    }

    /**
     * What the workers know of the jobs, to tell when a round is over: how many were added, how
     * often each was marked sent, which consumer (index) holds its claim, and who crashed.
     */
    private static final class Book {
        private final AtomicInteger added = new AtomicInteger();
        private final AtomicIntegerArray marks;
        private final AtomicIntegerArray holder;
        private final AtomicIntegerArray crashed;
        /** Sequence number plus one of the event of each job's first send (0: not sent, or not recorded yet). */
        private final AtomicLongArray firstSend;

        Book(int jobs, int workers) {
            firstSend = new AtomicLongArray(jobs + 1);
            marks = new AtomicIntegerArray(jobs + 1);
            holder = new AtomicIntegerArray(jobs + 1);
            crashed = new AtomicIntegerArray(workers);
        }

        /**
         * Whether the first {@code upTo} jobs are all added and each is sent, or (with no lease)
         * held by a consumer that crashed: nobody will ever send it then.
         */
        boolean settled(int upTo, boolean lease) {
            if (added.get() < upTo) {
                return false;
            }
            for (int id = 1; id <= upTo; id++) {
                if (marks.get(id) == 0 && (lease || holder.get(id) == 0 || crashed.get(holder.get(id)) == 0)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The first worker: adds each round's jobs at the producer's rate. */
    private final class Producer implements LabWorker {

        private final WorkerContext context;
        private final PgSessions.Session session;
        private long startNanos;

        Producer(WorkerContext context, PgSessions.Session session) {
            this.context = context;
            this.session = session;
        }

        @Override
        public void operation(int n) throws Exception {
            if (n == 0) {
                startNanos = System.nanoTime();
                context.state(ActorState.RUNNING, "adding jobs");
            }
            for (int k = 0; k < perRound; k++) {
                int id = n * perRound + k + 1;
                long wait = startNanos + (id - 1) * producerPeriodNanos - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                try (PgSessions.Lease lease = session.borrow();
                     PreparedStatement ps = lease.connection().prepareStatement(SQL.get("add-job"))) {
                    ps.setString(1, setup.runId());
                    ps.setInt(2, id);
                    ps.setString(3, "reader-" + id + "@example.org");
                    ps.setString(4, "Your order #" + id + " has shipped");
                    ps.executeUpdate();
                }
                context.mark(EventKind.JOB_ADDED, QUEUE, id);
                book.added.set(id);
            }
        }

        @Override
        public void abort() {
            session.abort();
        }

        @Override
        public void close() throws SQLException {
            survivors.done();
            session.close();
        }
    }

    /** A consumer: takes a batch, sends it, marks it sent, again and again until its round is settled. */
    private final class Consumer implements LabWorker {

        private final WorkerContext context;
        private final PgSessions.Session session;
        /** Crashed: out of the run for good; later operations do nothing. */
        private boolean out;

        Consumer(WorkerContext context, PgSessions.Session session) {
            this.context = context;
            this.session = session;
        }

        @Override
        public void operation(int n) throws Exception {
            int upTo = (n + 1) * perRound;
            while (!out && !book.settled(upTo, leaseMs > 0) && !context.stopping()) {
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
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
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
            return switch (strategy) {
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
                ps.setString(1, setup.runId());
                ps.setInt(2, batch);
                ids = JobClaims.ids(ps);
            }
            if (ids.isEmpty()) {
                return null;
            }
            context.state(ActorState.RUNNING, "selected jobs " + ids(ids));
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
                shortBatches.increment();
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
                ps.setString(1, setup.runId());
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
                if (!DEADLOCK_DETECTED.equals(e.getSQLState())) {
                    throw e;
                }
                context.mark(EventKind.RETRY, "deadlock: PostgreSQL cancelled this claim, which waited for "
                        + "another claim's jobs while that one waited for its own (40P01); it took nothing", 0);
                return null;
            }
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
            JobClaims.bind(ps, setup.runId(), token, context.name(), leaseMs, batch);
        }

        /** Records a claim that went through: its token, and each job, noting any it took over. */
        private void claimed(long token, List<Integer> ids) {
            if (ids.isEmpty()) {
                context.mark(EventKind.TOKEN, "request token", token);
                return;
            }
            context.state(ActorState.RUNNING, "claim #" + token + ": jobs " + ids(ids));
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
            crashed.add(context.name());
            boolean orphans = strategy.claims() && leaseMs == 0;
            if (orphans) {
                for (int ignored : held.ids) {
                    context.violation(ORPHANED, 1);
                }
            }
            context.state(ActorState.FAILED, !strategy.claims()
                    ? "crashed; it had claimed nothing, so its jobs are still there for others"
                    : "crashed holding claim #" + held.token + " (jobs " + ids(held.ids) + ")"
                            + (orphans ? ": nothing will take them back" : " until its lease runs out"));
            session.abort();
            survivors.done();
            survivors.outlast(() -> { });
            return true;
        }

        /** Sends each email of the batch: the slow part, done once per job if all goes well. */
        private void send(Batch taken) throws InterruptedException {
            for (int id : taken.ids) {
                context.state(ActorState.SENDING, "job " + id);
                if (sendMillis > 0) {
                    TimeUnit.MILLISECONDS.sleep(sendMillis);
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
            context.state(ActorState.RUNNING, "marking jobs " + ids(taken.ids) + " sent");
            List<Integer> sent = new ArrayList<>();
            try (PgSessions.Lease lease = session.borrow();
                 PreparedStatement ps = lease.connection().prepareStatement(SQL.get("mark-sent"))) {
                ps.setString(1, setup.runId());
                ps.setArray(2, lease.connection().createArrayOf("integer", taken.ids.toArray()));
                ps.setString(3, context.name());
                if (strategy.claims()) {
                    ps.setLong(4, taken.token);
                } else {
                    ps.setNull(4, Types.BIGINT);
                }
                ps.setBoolean(5, conditionalMark);
                try (ResultSet rs = ps.executeQuery()) {
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
                refused.add(calledOff.size());
                for (int ignored : calledOff) {
                    context.mark(EventKind.WRITE_REJECTED, "mark of claim #" + taken.token, taken.token);
                }
                context.mark(EventKind.NOTE, "jobs " + ids(calledOff) + " are another consumer's claim now: "
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
    }

    /** Jobs a consumer took, and the token of its claim (0 when it claimed nothing). */
    private record Batch(long token, List<Integer> ids) {
    }
}
