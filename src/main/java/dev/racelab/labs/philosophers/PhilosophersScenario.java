package dev.racelab.labs.philosophers;

import dev.racelab.backend.Redis;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Recorder;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.HardenedSemaphore;
import dev.racelab.labs.redis.sync.Semaphore;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.support.RecordingEvents;
import dev.racelab.labs.support.RedisFixture;
import dev.racelab.labs.support.SyncWorker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import static dev.racelab.labs.support.RedisFixture.PATIENCE;

/**
 * One run of the dining philosophers. An operation is one meal: think, get hungry, take the
 * forks as the strategy says, eat, put them down.
 *
 * <p>The oracle: when the run stalls it builds the wait-for graph from Redis (who holds each fork,
 * who is in each fork's queue) and names the cycle, and marks it on the timeline (a violation on
 * the run's lane, and on each philosopher in the cycle a note whose value is the philosopher it
 * waits for, which the table view draws as arrows). At the end it reports meals per philosopher,
 * the longest hunger, and philosophers that starved or gave up meals after endless retries.
 */
final class PhilosophersScenario implements Scenario {

    static final String DEADLOCK = "deadlock";
    static final String STARVED = "starved philosophers";
    static final String ABANDONED = "abandoned meals";
    /** The prefix of the notes that name a deadlocked philosopher's edge of the cycle. */
    static final String CYCLE_NOTE = "deadlock: waits for ";
    static final String SEATS = "seats";
    /** Consecutive failed tries after which a try-backoff philosopher gives up a meal: a livelock. */
    static final int MAX_TRIES = 1_000;


    private static final Duration LEASE = Duration.ofSeconds(2);

    private final RedisFixture redis;
    private final Constructs constructs;
    private final PhilosophersStrategy strategy;
    private final int n;
    private final RecordingEvents.Tally tally = new RecordingEvents.Tally();
    private final AtomicIntegerArray meals;
    private final AtomicIntegerArray actors;
    private final AtomicLongArray longestHunger;
    private final AtomicLong deadlockSeq = new AtomicLong(-1);
    /**
     * How long a philosopher thinks and eats, in ms, before any delay set at the gates: from 1 to
     * the lab's switch, never the same twice, as real philosophers. Lockstep (and so naive's
     * deadlock) then needs a nudge: a delay at between-forks.
     */
    private final int thinkMillis;
    private final int eatMillis;
    private final LongAdder retries = new LongAdder();
    private final LongAdder abandoned = new LongAdder();

    PhilosophersScenario(Redis server, PhilosophersStrategy strategy, RunSetup setup) {
        this.redis = RedisFixture.hardened(server, setup, LEASE);
        this.constructs = redis.constructs();
        this.strategy = strategy;
        this.n = setup.workers();
        this.meals = new AtomicIntegerArray(n);
        this.actors = new AtomicIntegerArray(n);
        this.longestHunger = new AtomicLongArray(n);
        this.thinkMillis = setup.get(PhilosophersLab.THINK_MS);
        this.eatMillis = setup.get(PhilosophersLab.EAT_MS);
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
        actors.set(context.index(), context.actor());
        SyncClient client = redis.client(context, new RecordingEvents(context, tally));
        return new Philosopher(context, client);
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(redis.observer("redis: forks", semaphores(), List.of()));
    }

    @Override
    public String explain(Throwable failure) {
        return redis.explain(failure).orElseGet(() -> Scenario.super.explain(failure));
    }

    @Override
    public void close() {
        redis.close();
    }

    @Override
    public Outcome diagnose(RunSummary summary) {
        WaitForGraph graph = waitForGraph();
        Outcome deadlock = deadlock(summary, graph);
        if (deadlock != null) {
            return deadlock;
        }
        String who = graph.edges().stream().map(e -> e.waiter() + " waits for " + e.resource() + ", held by "
                + e.holder()).collect(Collectors.joining("; "));
        return new Outcome(Verdict.STUCK, "no progress, but no cycle of waiting either",
                (who.isEmpty() ? "Nobody waits in a fork's queue." : who + ".") + " " + mealsText(),
                Map.of(), metrics(), List.of());
    }

    /**
     * The forks' queues after a quiet second: a cycle there is for ever, since every waiter blocks
     * until its fork comes and every holder is alive (its lease is renewed) and waiting itself.
     */
    @Override
    public Outcome deadlock(RunSummary summary) {
        return deadlock(summary, waitForGraph());
    }

    /** Who waits in which fork's (or seat's) queue for whom, as Redis has it. */
    private WaitForGraph waitForGraph() {
        WaitForGraph graph = new WaitForGraph();
        for (String name : semaphores()) {
            List<String> holders = constructs.holding(redis.admin(), name);
            for (String waiter : constructs.waiting(redis.admin(), name)) {
                holders.forEach(holder -> graph.waitsFor(waiter, name, holder));
            }
        }
        return graph;
    }

    private Outcome deadlock(RunSummary summary, WaitForGraph graph) {
        List<WaitForGraph.Edge> cycle = graph.cycle(Comparator.comparingInt(this::indexOf));
        if (cycle.isEmpty()) {
            return null;
        }
        String path = cycle.stream().map(WaitForGraph.Edge::waiter).collect(Collectors.joining(" → "))
                + " → " + cycle.get(0).waiter();
        mark(summary.recorder(), cycle, path);
        String how = cycle.stream().map(e -> e.waiter() + " waits for " + e.resource() + ", held by " + e.holder())
                .collect(Collectors.joining("; "));
        return new Outcome(Verdict.DEADLOCK, path,
                "Each waits for the next, and none lets go: " + how + ". " + mealsText(),
                Map.of(DEADLOCK, 1L), metrics(), deadlockSeq.get() < 0 ? List.of() : List.of(deadlockSeq.get()));
    }

    /** Puts the cycle on the timeline: one violation on the run's lane, one note per edge. */
    private void mark(Recorder recorder, List<WaitForGraph.Edge> cycle, String path) {
        // On the lane of the first philosopher in the cycle, so the timeline can point at it.
        var violation = recorder.record(actors.get(indexOf(cycle.get(0).waiter())), EventKind.VIOLATION, DEADLOCK, 1);
        if (violation != null) {
            deadlockSeq.set(violation.seq());
        }
        recorder.record(Run.RUN_ACTOR, EventKind.NOTE, "deadlock: " + path, cycle.size());
        for (WaitForGraph.Edge edge : cycle) {
            recorder.record(actors.get(indexOf(edge.waiter())), EventKind.NOTE,
                    CYCLE_NOTE + edge.resource() + ", held by " + edge.holder(), actors.get(indexOf(edge.holder())));
        }
    }

    private int indexOf(String philosopher) {
        return Integer.parseInt(philosopher.substring(philosopher.lastIndexOf('-') + 1)) - 1;
    }

    @Override
    public Outcome judge(RunSummary summary) {
        List<String> starved = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (meals.get(i) == 0) {
                starved.add("philosopher-" + (i + 1));
            }
        }
        Map<String, Long> violations = new LinkedHashMap<>();
        if (abandoned.sum() > 0) {
            violations.put(ABANDONED, abandoned.sum());
            return new Outcome(Verdict.STUCK, "livelock: " + abandoned.sum() + " meals given up after " + MAX_TRIES
                    + " tries each",
                    "The philosophers kept taking a fork, finding the other taken and putting theirs back, in step "
                            + "with each other. " + mealsText(), violations, metrics(), List.of());
        }
        if (!starved.isEmpty()) {
            violations.put(STARVED, (long) starved.size());
            return new Outcome(Verdict.STUCK, String.join(", ", starved) + " never ate",
                    "Starved while the others ate. " + mealsText(), violations, metrics(), List.of());
        }
        int hungriest = hungriest();
        return new Outcome(Verdict.SAFE, "every philosopher ate; no deadlock",
                mealsText() + " The longest hunger was " + longestHunger.get(hungriest) / 1_000_000 + " ms (philosopher-"
                        + (hungriest + 1) + ").", violations, metrics(), List.of());
    }

    private int hungriest() {
        int worst = 0;
        for (int i = 1; i < n; i++) {
            if (longestHunger.get(i) > longestHunger.get(worst)) {
                worst = i;
            }
        }
        return worst;
    }

    private String mealsText() {
        StringBuilder text = new StringBuilder("Meals:");
        for (int i = 0; i < n; i++) {
            text.append(i == 0 ? " " : ", ").append("philosopher-").append(i + 1).append(' ').append(meals.get(i));
        }
        return text.append('.').toString();
    }

    private Map<String, Number> metrics() {
        Map<String, Number> metrics = new LinkedHashMap<>();
        long total = 0;
        int fewest = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            total += meals.get(i);
            fewest = Math.min(fewest, meals.get(i));
        }
        metrics.put("meals", total);
        metrics.put("fewestMeals", fewest);
        metrics.put("longestHungerMs", longestHunger.get(hungriest()) / 1_000_000);
        metrics.put("retries", retries.sum());
        metrics.put("abandonedMeals", abandoned.sum());
        for (int i = 0; i < n; i++) {
            metrics.put("meals:philosopher-" + (i + 1), meals.get(i));
        }
        return metrics;
    }

    /** One philosopher: each operation is one meal. */
    private final class Philosopher extends SyncWorker {

        private final HardenedSemaphore left;
        private final HardenedSemaphore right;
        private final Semaphore seat;

        Philosopher(WorkerContext context, SyncClient client) {
            super(context, client);
            int k = context.index() + 1;
            this.left = constructs.hardenedSemaphore(client, fork(k));
            this.right = constructs.hardenedSemaphore(client, fork(k % n + 1));
            this.seat = strategy == PhilosophersStrategy.WAITER ? constructs.semaphore(client, SEATS) : null;
        }

        @Override
        public void operation(int meal) throws Exception {
            context.state(ActorState.THINKING);
            pause(thinkMillis);
            context.gate(PhilosophersLab.THINKING);
            context.state(ActorState.HUNGRY);
            long hungrySince = System.nanoTime();
            if (seat != null) {
                take(seat);
            }
            try {
                boolean ate = switch (strategy) {
                    case TRY_BACKOFF -> eatTryingAndBackingOff(hungrySince);
                    case NAIVE, ORDERED, WAITER -> eatInOrder(hungrySince);
                };
                if (!ate) {
                    abandoned.increment();
                    context.mark(EventKind.NOTE, "gave up this meal after " + MAX_TRIES + " tries", MAX_TRIES);
                }
            } finally {
                if (seat != null) {
                    seat.release();
                }
            }
            context.state(ActorState.THINKING);
        }

        /** naive, ordered and waiter: take one fork, then the other, waiting as long as it takes. */
        private boolean eatInOrder(long hungrySince) throws Exception {
            boolean leftFirst = strategy != PhilosophersStrategy.ORDERED || context.index() + 1 < n;
            Semaphore first = leftFirst ? left : right;
            Semaphore second = leftFirst ? right : left;
            take(first);
            try {
                context.state(ActorState.HOLDING, first.name());
                context.gate(PhilosophersLab.BETWEEN_FORKS);
                take(second);
                try {
                    eat(hungrySince);
                } finally {
                    second.release();
                }
            } finally {
                first.release();
            }
            return true;
        }

        /** try-backoff: left fork, then try the right; put the left back when the right is taken. */
        private boolean eatTryingAndBackingOff(long hungrySince) throws Exception {
            for (int tries = 1; tries <= MAX_TRIES; tries++) {
                take(left);
                try {
                    context.state(ActorState.HOLDING, left.name());
                    context.gate(PhilosophersLab.BETWEEN_FORKS);
                    if (right.tryAcquire()) {
                        try {
                            eat(hungrySince);
                        } finally {
                            right.release();
                        }
                        return true;
                    }
                } finally {
                    left.release();
                }
                retries.increment();
                context.mark(EventKind.RETRY, right.name() + " was taken: put " + left.name() + " back", tries);
                context.state(ActorState.HUNGRY);
                context.gate(PhilosophersLab.BACKOFF);
            }
            return false;
        }

        private void take(Semaphore semaphore) throws InterruptedException {
            if (!semaphore.acquireOrEnqueue()) {
                while (!semaphore.awaitTurn(PATIENCE)) {
                    context.mark(EventKind.NOTE, "still waiting for " + semaphore.name(), 0);
                }
            }
        }

        private void eat(long hungrySince) throws InterruptedException {
            context.state(ActorState.EATING);
            int i = context.index();
            longestHunger.accumulateAndGet(i, System.nanoTime() - hungrySince, Math::max);
            meals.incrementAndGet(i);
            pause(eatMillis);
            context.gate(PhilosophersLab.EATING);
        }

        /** Thinks or eats for a while drawn from the run's seed, so philosophers do not move in lockstep. */
        private void pause(int most) throws InterruptedException {
            Thread.sleep(context.random().nextInt(1, most + 1));
        }
    }
}
