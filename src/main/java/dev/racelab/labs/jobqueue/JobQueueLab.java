package dev.racelab.labs.jobqueue;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.Switch;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.ProfiledLab;

import java.util.List;
import java.util.Set;

/**
 * A job queue in a PostgreSQL table, after the source article on the request token: a producer
 * adds email jobs, consumers take them in batches, send them and mark them sent. Every email sent
 * is a row in an outbox with no uniqueness, so an email sent twice is there to count.
 *
 * <p>The first worker is the {@code producer}, the others are {@code consumer-1 … consumer-N}.
 * An operation is a round: in each, the producer adds one batch of jobs per consumer, and a
 * consumer's operation ends once every job of that round and the rounds before it is sent (or
 * can never be: its claim belongs to a consumer that crashed, and no lease lets anyone take it
 * back). So the default run, four consumers in batches of four over two rounds, sends 32 emails.
 *
 * <p>Selecting the oldest unsent jobs and marking them sent only after sending lets every
 * consumer that selects before the first one marks send the same jobs. The source article's
 * request token claims them first ({@code UPDATE … SET request_token = mine WHERE … AND
 * request_token IS NULL}), commits, and selects them back by token: safe, but under concurrency
 * a claim finds jobs taken by the time it gets to them and comes back short. {@code FOR UPDATE
 * SKIP LOCKED} claims in one statement, passing over what others hold.
 *
 * <p>A claim outlives its consumer. A consumer that crashes after claiming ({@link #CRASH}, a
 * fault gate) leaves its jobs claimed for ever; a lease ({@link #LEASE_MS}) lets another consumer
 * take over a claim that was not marked sent in time. But a consumer that was merely slow (a
 * delay at {@link #BEFORE_MARK}) is still sending: its mark then sends the job a second time
 * unless the mark goes through only while the claim still carries its token ({@link
 * #CONDITIONAL_MARK}: a fencing token again, the claim's).
 */
public final class JobQueueLab extends ProfiledLab<JobQueueStrategy> {

    static final String PRODUCER = "producer";
    static final String CONSUMER = "consumer";

    static final Gate BEFORE_TAKE = new Gate("before-take",
            "a consumer is about to look for jobs: it has none in hand (the producer passes no gate)");
    static final Gate AFTER_CLAIM = new Gate("after-claim",
            "the claim committed: the jobs carry this consumer's token (request-token, skip-locked; "
                    + "select-then-update claims nothing and does not stop here)");
    static final Gate CRASH = Gate.fault("crash-after-claim",
            "a consumer with a rule here crashes as soon as it has its jobs: a claim stays in the table "
                    + "with nobody to send its jobs");
    static final Gate AFTER_SELECT = new Gate("after-select",
            "the consumer knows which jobs it will send (select-then-update: the oldest unsent; request-token: "
                    + "those carrying its token; skip-locked: what its claim returned), and has sent none yet");
    static final Gate BEFORE_MARK = new Gate("before-mark",
            "every email of the batch is ready; the final mark records them as sent (a long delay here is a "
                    + "consumer that is slow, not dead)");

    /**
     * Consumers look for work at moments of their own, as consumers that sleep between polls do;
     * so select-then-update sends some jobs twice and others once, and the race shows as one.
     */
    static final GateRule PAUSE_BEFORE_TAKE = GateRule.range(20, 100);

    static final Switch<Integer> BATCH = Switch.integer("batch", "Batch size",
            "jobs a consumer asks for at once; each round the producer adds one batch per consumer", "jobs", 4, 1, 100);
    static final Switch<Integer> SEND_MS = Switch.integer("send-ms", "Send time",
            "how long sending one email takes", "ms", 2, 0, 10_000);
    static final Switch<Integer> PRODUCER_RATE = Switch.integer("producer-rate", "Producer rate",
            "jobs the producer adds per second", "jobs/s", 400, 1, 100_000);
    static final Switch<Integer> LEASE_MS = Switch.integer("lease-ms", "Lease",
            "request-token and skip-locked: a claim not marked sent this long after it was made may be taken over "
                    + "by another consumer; 0: never (no lease)", "ms", 0, 0, 600_000);
    static final Switch<Boolean> CONDITIONAL_MARK = Switch.flag("conditional-mark", "Mark only if still mine",
            "request-token and skip-locked: the final mark (and the emails it sends) goes through only for jobs "
                    + "whose claim still carries this consumer's token", false);

    /** A consumer and the producer besides; up to 64 consumers. */
    private static final LabProfile.Crew CREW = new LabProfile.Crew("worker", 5, 2, 65);

    private final Backends backends;

    public JobQueueLab(Backends backends) {
        super(JobQueueStrategy.class, new LabProfile("job-queue", "Job queue",
                "A producer queues emails, consumers send them; selecting then updating sends some twice.",
                Set.of(Service.POSTGRES), List.of(JobQueueStrategy.values()),
                List.of(BEFORE_TAKE, AFTER_CLAIM, CRASH, AFTER_SELECT, BEFORE_MARK), CREW, 2,
                List.of(BATCH, SEND_MS, PRODUCER_RATE, LEASE_MS, CONDITIONAL_MARK)));
        this.backends = backends;
    }

    /** {@code producer} for the first worker, {@code consumer-1} for the second, and so on. */
    /** The producer and two consumers: with one consumer, nobody takes a job another has. */
    @Override
    public int exploredWorkers() {
        return 3;
    }

    @Override
    public String workerName(int index) {
        return index == 0 ? PRODUCER : CONSUMER + "-" + index;
    }

    @Override
    public int workerIndex(String name, int workers) {
        if (name.equals(PRODUCER)) {
            return 0;
        }
        String prefix = CONSUMER + "-";
        if (!name.startsWith(prefix) || !name.substring(prefix.length()).matches("[0-9]{1,9}")) {
            return -1;
        }
        int n = Integer.parseInt(name.substring(prefix.length()));
        return n >= 1 && n < workers ? n : -1;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(BEFORE_TAKE.id(), PAUSE_BEFORE_TAKE);
    }

    @Override
    protected Scenario open(JobQueueStrategy strategy, RunSetup setup) throws Exception {
        return new JobQueueScenario(backends.postgres(), strategy, setup);
    }

    @Override
    protected LabView view(JobQueueStrategy strategy, RunHeader header) {
        return new JobQueueView(strategy, header);
    }

    /** The most jobs a run may add: more would not fit the strip, nor the run's memory. */
    static final int MOST_JOBS = 100_000;

    /** How many jobs a run of {@code workers} workers and {@code rounds} operations adds. */
    static long jobs(int workers, int rounds, int batch) {
        return (long) (workers - 1) * rounds * batch;
    }
}
