package dev.racelab.labs.primitives;

import dev.racelab.backend.Redis;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.Semaphore;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.support.RecordingEvents;
import dev.racelab.labs.support.RedisFixture;
import dev.racelab.labs.support.Survivors;
import dev.racelab.labs.support.SyncObserver;
import dev.racelab.labs.support.SyncWorker;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import static dev.racelab.labs.support.RedisFixture.PATIENCE;

/**
 * One run of the Redis primitives lab. Each operation: take the mutex (or a permit), read the
 * protected counter, write it back plus one, release. Fault gates make a worker crash, vanish,
 * give up or release twice at a chosen point.
 *
 * <p>The oracle checks, at the event where it happens, that no more workers are inside the
 * critical section than there are permits; and, from what Redis holds at the end (or when the
 * run stalls), that every permit is accounted for: free in the counter, or held by a worker that
 * is alive (the article's constructs) or by an owner on record (the hardened ones).
 */
final class PrimitivesScenario implements Scenario {

    static final String OVERLAP = "overlapping holders";
    static final String LOST = "lost permits";
    static final String EXTRA = "extra permits";
    static final String STUCK_WAITERS = "stuck waiters";

    private final RedisFixture redis;
    private final Constructs constructs;
    private final boolean hardened;
    private final String construct;
    private final int permits;
    private final String valueKey;
    private final Survivors survivors;
    private final RecordingEvents.Tally tally = new RecordingEvents.Tally();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();
    /** Permits held by workers that are alive, as the workers know it. */
    private final AtomicInteger heldByTheLiving = new AtomicInteger();
    private final LongAdder overlaps = new LongAdder();
    private final LongAdder sections = new LongAdder();
    private final LongAdder wastedWakeUps = new LongAdder();
    private final Set<String> waiting = ConcurrentHashMap.newKeySet();
    private final Queue<String> incidents = new ConcurrentLinkedQueue<>();

    PrimitivesScenario(Redis server, PrimitivesStrategy strategy, RunSetup setup) {
        this.redis = strategy.hardened()
                ? RedisFixture.hardened(server, setup, Duration.ofMillis(setup.get(PrimitivesLab.LEASE_MS)))
                : RedisFixture.article(server, setup);
        this.constructs = redis.constructs();
        this.hardened = strategy.hardened();
        this.construct = strategy.construct();
        this.permits = strategy.permits();
        this.valueKey = redis.space().key("value");
        this.survivors = new Survivors(setup.workers());
        redis.setUp(admin -> {
            constructs.createSemaphore(admin, construct, permits);
            admin.set(valueKey, "0");
        });
    }

    @Override
    public LabWorker worker(WorkerContext context) {
        Events events = new Events(context);
        SyncClient client = redis.client(context, events);
        Semaphore semaphore = permits == 1 ? constructs.mutex(client, construct)
                : constructs.semaphore(client, construct);
        return new Client(context, client, semaphore);
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(redis.observer("redis: " + construct, List.of(construct),
                List.of(new SyncObserver.Value("protected counter", valueKey))));
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(redis);
    }

    /** The incidents that matter to the oracle, on top of the lane events every Redis lab records. */
    private final class Events extends RecordingEvents {
        Events(WorkerContext context) {
            super(context, PrimitivesScenario.this.tally);
        }

        @Override
        public void unread(String name, int count) {
            super.unread(name, count);
            if (!hardened) {
                wastedWakeUps.add(count);
                context.violation(LOST, count);
            }
        }
    }

    @Override
    public Outcome judge(RunSummary summary) {
        Books books = balance();
        Map<String, Long> violations = new LinkedHashMap<>();
        if (overlaps.sum() > 0) {
            violations.put(OVERLAP, overlaps.sum());
        }
        if (books.lost > 0) {
            violations.put(LOST, books.lost);
        }
        if (books.extra > 0) {
            violations.put(EXTRA, books.extra);
        }
        String what = permits == 1 ? "the mutex" : "the semaphore's " + permits + " permits";
        if (overlaps.sum() > 0) {
            return outcome(Verdict.RACE, mostInside.get() + " workers inside at once, " + permits + " allowed",
                    "More workers held " + what + " than it has permits, " + count(overlaps.sum(), "time")
                            + ". ", violations, books);
        }
        if (books.lost > 0) {
            return outcome(Verdict.RACE, count(books.lost, "permit") + " lost for good",
                    "Of " + what + ", " + count(books.lost, "permit") + (books.lost == 1 ? " is" : " are")
                            + " neither free nor held by anyone alive; the run got by with the rest. ",
                    violations, books);
        }
        if (books.extra > 0) {
            return outcome(Verdict.RACE, count(books.extra, "permit") + " made from nothing",
                    "Redis now counts more permits than " + what + " ever had: a later rush can let too many in. ",
                    violations, books);
        }
        return outcome(Verdict.SAFE, "never more than " + permits + " inside; every permit accounted for",
                sections.sum() + " critical sections, at most " + mostInside.get() + " at once. ", violations, books);
    }

    /**
     * Quiet for a second: with the article's construct, when no permit is free nor held by anyone
     * alive and a worker is queued, nothing in Redis can ever hand one out (no owner, no lease), so
     * the run ends now as {@link #diagnose} would at the timeout. The hardened construct's leases
     * can still give a permit back, so it waits on.
     */
    @Override
    public Outcome deadlock(RunSummary summary) {
        if (hardened || waiting.isEmpty() || heldByTheLiving.get() > 0) {
            return null;
        }
        return balance().lost == permits ? diagnose(summary) : null;
    }

    /** The run stalled: nobody can go on. Says which permits are gone and who waits for ever. */
    @Override
    public Outcome diagnose(RunSummary summary) {
        Books books = balance();
        List<String> stuck = constructs.waiting(redis.admin(), construct).stream().filter(waiting::contains).toList();
        Map<String, Long> violations = new LinkedHashMap<>();
        if (books.lost > 0) {
            violations.put(LOST, books.lost);
        }
        violations.put(STUCK_WAITERS, (long) stuck.size());
        String headline = (books.lost > 0 ? count(books.lost, "permit") + " lost — " : "")
                + count(stuck.size(), "worker") + " wait" + (stuck.size() == 1 ? "s" : "") + " for ever";
        return outcome(Verdict.STUCK, headline, "Waiting with no permit to come: " + String.join(", ", stuck)
                + ". ", violations, books);
    }

    private Outcome outcome(Verdict verdict, String headline, String lead, Map<String, Long> violations, Books books) {
        StringBuilder text = new StringBuilder(lead);
        incidents.forEach(incident -> text.append(incident).append(' '));
        if (!hardened && tally.retried.sum() > 0) {
            text.append("The article's release ran again ").append(count(tally.retried.sum(), "time"))
                    .append(" because PUBLISH reached nobody; that saved those permits. ");
        }
        if (wastedWakeUps.sum() > 0) {
            text.append(count(wastedWakeUps.sum(), "wake-up")).append(" reached a worker that was not waiting: PUBLISH "
                    + "counted it as received, so the release did not run again, and the permit went with it. ");
        }
        if (tally.reclaimed.sum() > 0) {
            text.append(count(tally.reclaimed.sum(), "lease")).append(" ran out and the permit was taken back. ");
        }
        if (tally.refused.sum() > 0) {
            text.append(count(tally.refused.sum(), "release")).append(" by a worker holding nothing refused. ");
        }
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("permits", permits);
        metrics.put("criticalSections", sections.sum());
        metrics.put("mostInside", mostInside.get());
        metrics.put("freePermits", books.free);
        metrics.put("lostPermits", books.lost);
        metrics.put("protectedCounter", books.value);
        metrics.put("retriedReleases", tally.retried.sum());
        metrics.put("reclaimedLeases", tally.reclaimed.sum());
        metrics.put("refusedReleases", tally.refused.sum());
        metrics.put("wastedWakeUps", wastedWakeUps.sum());
        return new Outcome(verdict, headline, text.toString().strip(), violations, metrics, List.of());
    }

    /** Where every permit is, by what Redis holds and what the workers know. */
    private record Books(long free, long lost, long extra, long value) {
    }

    private Books balance() {
        Jedis admin = redis.admin();
        long free = Long.parseLong(admin.get(constructs.counterKey(construct)));
        long held = hardened ? admin.zcard(constructs.holdersKey(construct)) : heldByTheLiving.get();
        long missing = permits - free - held;
        long value = Long.parseLong(admin.get(valueKey));
        return new Books(free, Math.max(0, missing), Math.max(0, -missing), value);
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** One worker: take a permit, increment the protected counter, give the permit back. */
    private final class Client extends SyncWorker {

        private final Semaphore semaphore;
        /** Out of the run for good (crashed, vanished, gave up); later operations do nothing. */
        private boolean out;

        Client(WorkerContext context, SyncClient client, Semaphore semaphore) {
            super(context, client);
            this.semaphore = semaphore;
        }

        @Override
        public void operation(int n) throws Exception {
            if (out) {
                return;
            }
            context.gate(PrimitivesLab.BEFORE_ACQUIRE);
            if (!semaphore.acquireOrEnqueue() && !awaitPermit()) {
                return;
            }
            heldByTheLiving.incrementAndGet();
            int now = inside.incrementAndGet();
            boolean crashed = false;
            try {
                context.state(ActorState.CRITICAL, construct);
                mostInside.accumulateAndGet(now, Math::max);
                if (now > permits) {
                    overlaps.increment();
                    context.violation(OVERLAP, now - permits);
                }
                long value = Long.parseLong(client.commands().get(valueKey));
                context.mark(EventKind.READ, "protected counter", value);
                context.gate(PrimitivesLab.IN_CRITICAL_SECTION);
                if (context.fault(PrimitivesLab.HOLDER_CRASHES)) {
                    crashed = true;
                    leaveCriticalSection();
                    if (!hardened) {
                        context.violation(LOST, 1);
                    }
                    dropOut(ActorState.FAILED, context.name() + " crashed holding the " + construct + (hardened
                            ? "; its lease was no longer renewed."
                            : ": nothing in Redis says who holds it, so nobody can take it back."), client::crash);
                    return;
                }
                client.commands().set(valueKey, Long.toString(value + 1));
                context.mark(EventKind.WRITE, "protected counter", value + 1);
                sections.increment();
                context.gate(PrimitivesLab.BEFORE_RELEASE);
            } finally {
                if (!crashed) {
                    leaveCriticalSection();
                    semaphore.release();
                }
            }
            if (context.fault(PrimitivesLab.RELEASE_REPEATED)) {
                incidents.add(context.name() + " sent its release twice.");
                semaphore.release();
            }
            context.state(ActorState.RUNNING);
        }

        /** This worker is no longer inside, nor holding a permit as far as it knows. */
        private void leaveCriticalSection() {
            inside.decrementAndGet();
            heldByTheLiving.decrementAndGet();
        }

        /** Queued: waits for the permit, unless a fault gate ends the wait. Returns whether it holds one. */
        private boolean awaitPermit() throws Exception {
            context.state(ActorState.WAITING, construct);
            if (context.fault(PrimitivesLab.WAITER_CRASHES)) {
                dropOut(ActorState.FAILED, context.name() + " crashed while queued; its connections closed.", client::crash);
                return false;
            }
            if (context.fault(PrimitivesLab.WAITER_VANISHES)) {
                dropOut(ActorState.FAILED, context.name() + " froze while queued, its connections still open.", client::vanish);
                return false;
            }
            if (context.fault(PrimitivesLab.WAITER_GIVES_UP)) {
                semaphore.stopWaiting();
                dropOut(ActorState.IDLE, context.name() + " stopped waiting and went away, still connected.", () -> { });
                return false;
            }
            waiting.add(context.name());
            try {
                while (!semaphore.awaitTurn(PATIENCE)) {
                    context.mark(EventKind.NOTE, "still waiting for the " + construct, 0);
                }
            } finally {
                waiting.remove(context.name());
            }
            return true;
        }

        /**
         * Leaves the run for good: records why, suffers the fault, then stays on its lane (in {@code
         * state}: failed, or idle for one that merely went away) until the others are done,
         * reporting the wake-ups that still reach it.
         */
        private void dropOut(ActorState state, String incident, Runnable fault) throws InterruptedException {
            out = true;
            fault.run();
            incidents.add(incident);
            context.state(state, incident);
            survivors.done();
            int[] pendingSeen = {0};
            survivors.outlast(context, () -> {
                if (client.health() == SyncClient.Health.LIVE) {
                    client.reportUnread();
                }
                int pending = client.pendingWakeUps();
                if (pending > pendingSeen[0]) {
                    if (!hardened) {
                        wastedWakeUps.add(pending - pendingSeen[0]);
                        context.violation(LOST, pending - pendingSeen[0]);
                    }
                    context.mark(EventKind.NOTE, "a wake-up reached " + context.name() + ", which will never act on it",
                            pending);
                    pendingSeen[0] = pending;
                }
            });
        }

        @Override
        public void close() {
            if (!out) {
                survivors.done();
            }
            super.close();
        }
    }
}
