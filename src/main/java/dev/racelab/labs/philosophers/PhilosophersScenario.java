package dev.racelab.labs.philosophers;

import dev.racelab.backend.Redis;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.HardenedSemaphore;
import dev.racelab.labs.redis.sync.Semaphore;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.support.RecordingEvents;
import dev.racelab.labs.support.RedisFixture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of the dining philosophers, wired: the table laid in Redis (a one-permit semaphore per
 * fork, and with a waiter a semaphore of N-1 seats), a {@link Philosopher} per worker handed the
 * forks at its place, an observer on the forks, and the oracle ({@link PhilosophersVerdict}) that
 * decides when the run ends and what it found. An operation is one meal: think, get hungry, take
 * the forks as the strategy says, eat, put them down.
 *
 * <p>The names the timeline and the table view share (the marks, the notes, the forks) are
 * defined here.
 */
final class PhilosophersScenario implements Scenario {

    /** Violations, each counted in philosophers (the names of the marks on their lanes). */
    static final String DEADLOCKED = "deadlocked philosophers";
    static final String LIVELOCKED = "livelocked philosophers";
    static final String STARVING = "starving philosophers";
    /** The words of the run-lane {@code MEASURED} event at the instant the verdict measures hunger. */
    static final String MEASURED = "hunger measured for the verdict";
    static final String SEATS = "seats";

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final RedisFixture redis;
    private final Constructs constructs;
    private final PhilosophersStrategy strategy;
    private final int n;
    private final RecordingEvents.Tally tally = new RecordingEvents.Tally();
    /**
     * How long a philosopher thinks and eats, in ms, before any delay set at the gates: from 1 to
     * the lab's switch, never the same twice, as real philosophers. Lockstep (and so naive's
     * deadlock) then needs a nudge: a delay at between-forks.
     */
    private final int thinkMillis;
    private final int eatMillis;
    private final PhilosophersVerdict verdict;

    PhilosophersScenario(Redis server, PhilosophersStrategy strategy, RunSetup setup) {
        this.redis = RedisFixture.hardened(server, setup, LEASE);
        this.constructs = redis.constructs();
        this.strategy = strategy;
        this.n = setup.workers();
        this.thinkMillis = setup.get(PhilosophersLab.THINK_MS);
        this.eatMillis = setup.get(PhilosophersLab.EAT_MS);
        this.verdict = new PhilosophersVerdict(redis, semaphores(), n);
        redis.setUp(admin -> {
            for (int fork = 1; fork <= n; fork++) {
                constructs.createSemaphore(admin, fork(fork), 1);
            }
            if (strategy == PhilosophersStrategy.WAITER) {
                constructs.createSemaphore(admin, SEATS, n - 1);
            }
        });
    }

    static String fork(int number) {
        return "fork-" + number;
    }

    /** "5 philosophers in a cycle": the deadlock's key figure, in the banner, the panel and the picture. */
    static String cycleWords(int size) {
        return size + " philosophers in a cycle";
    }

    private List<String> semaphores() {
        List<String> names = new ArrayList<>();
        for (int fork = 1; fork <= n; fork++) {
            names.add(fork(fork));
        }
        if (strategy == PhilosophersStrategy.WAITER) {
            names.add(SEATS);
        }
        return names;
    }

    @Override
    public LabWorker worker(WorkerContext context) {
        verdict.seat(context.index(), context.actor());
        SyncClient client = redis.client(context, new RecordingEvents(context, tally));
        return new Philosopher(context, client, strategy, place(client, context.index() + 1), thinkMillis, eatMillis);
    }

    /**
     * Philosopher {@code k}'s place: fork {@code k} on its left, fork {@code k+1} on its right (the
     * last philosopher's right fork is fork 1, so only its left fork is not the lower one).
     */
    private Philosopher.Place place(SyncClient client, int k) {
        HardenedSemaphore left = constructs.hardenedSemaphore(client, fork(k));
        HardenedSemaphore right = constructs.hardenedSemaphore(client, fork(k % n + 1));
        Semaphore seat = strategy == PhilosophersStrategy.WAITER ? constructs.semaphore(client, SEATS) : null;
        return new Philosopher.Place(left, right, k < n, seat);
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(redis.observer("redis: forks", semaphores(), List.of()));
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(redis);
    }

    @Override
    public long waitingSince(RunSummary summary) {
        return verdict.waitingSince(summary);
    }

    @Override
    public Outcome diagnose(RunSummary summary) {
        return verdict.diagnose(summary);
    }

    @Override
    public Outcome deadlock(RunSummary summary) {
        return verdict.deadlock(summary);
    }

    @Override
    public Outcome judge(RunSummary summary) {
        return verdict.judge(summary);
    }
}
