package dev.racelab.labs.readerswriters;

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
import dev.racelab.labs.redis.sync.Condition;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.redis.sync.KeySpace;
import dev.racelab.labs.redis.sync.Monitor;
import dev.racelab.labs.redis.sync.Semaphore;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.support.RecordingEvents;
import dev.racelab.labs.support.RedisFixture;
import dev.racelab.labs.support.SyncObserver;
import dev.racelab.labs.support.SyncWorker;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import static dev.racelab.labs.support.RedisFixture.PATIENCE;

/**
 * One run of readers and writers. The monitor's state (how many read, how many write, how many
 * writers wait) lives in Redis keys, read and written by whoever holds the monitor's mutex, as in
 * the article. The document is two keys; a writer sets both to its version, one after the other.
 *
 * <p>The oracle, at the event where it happens: a writer getting in while anyone reads or writes,
 * or a reader while someone writes, is an exclusion violation; a reader finding the two parts
 * different read a torn document. It times every writer's wait and counts the reads that got in
 * while the writer waited, from the moment its request had its place in the monitor's queue: more
 * than two per reader means the writer was starved (in arrival order each reader could go ahead of
 * it at most once, having asked first). Counted from the moment its thread asked, a writer held up
 * by a busy machine before its request reached Redis was once called starved by a fair monitor.
 */
final class ReadersWritersScenario implements Scenario {

    static final String EXCLUSION = "exclusion violations";
    static final String TORN = "torn reads";
    static final String STARVATION = "starved writes";

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final String MONITOR = "monitor";
    private static final String TURNSTILE = "turnstile";
    private static final String OK_TO_READ = "ok-to-read";
    private static final String OK_TO_WRITE = "ok-to-write";

    private final RedisFixture redis;
    private final Constructs constructs;
    private final ReadersWritersStrategy strategy;
    private final int readers;
    private final String readingKey;
    private final String writingKey;
    private final String waitingWritersKey;
    private final String part1;
    private final String part2;
    private final RecordingEvents.Tally tally = new RecordingEvents.Tally();
    private final AtomicInteger readersInside = new AtomicInteger();
    private final AtomicInteger writersInside = new AtomicInteger();
    private final AtomicLong versions = new AtomicLong();
    private final LongAdder reads = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private final LongAdder exclusions = new LongAdder();
    private final LongAdder torn = new LongAdder();
    private final LongAdder starved = new LongAdder();
    private final AtomicLong longestWriterWait = new AtomicLong();
    private final AtomicLong longestReaderWait = new AtomicLong();
    private final AtomicLong mostBypasses = new AtomicLong();
    /**
     * Who waited longest and how many reads passed it; changed together with longestWriterWait,
     * under its lock, and put in words only when judged (words cost a cold run milliseconds).
     */
    private String worstWaiter;
    private long worstBypasses;

    ReadersWritersScenario(Redis server, ReadersWritersStrategy strategy, RunSetup setup) {
        this.redis = strategy.articleConstructs() ? RedisFixture.article(server, setup)
                : RedisFixture.hardened(server, setup, LEASE);
        this.constructs = redis.constructs();
        this.strategy = strategy;
        this.readers = setup.workers() - ReadersWritersLab.writers(setup.workers());
        KeySpace space = redis.space();
        this.readingKey = space.key("reading");
        this.writingKey = space.key("writing");
        this.waitingWritersKey = space.key("waiting-writers");
        this.part1 = space.key("document:part-1");
        this.part2 = space.key("document:part-2");
        redis.setUp(admin -> {
            constructs.createSemaphore(admin, MONITOR, 1);
            constructs.createSemaphore(admin, TURNSTILE, 1);
            constructs.createCondition(admin, OK_TO_READ);
            constructs.createCondition(admin, OK_TO_WRITE);
            for (String key : List.of(readingKey, writingKey, waitingWritersKey, part1, part2)) {
                admin.set(key, "0");
            }
        });
    }

    @Override
    public LabWorker worker(WorkerContext context) {
        SyncClient client = redis.client(context, new RecordingEvents(context, tally));
        return context.index() < readers ? new Reader(context, client) : new Writer(context, client);
    }

    @Override
    public List<ServerObserver> observers() {
        List<String> watched = new ArrayList<>(List.of(MONITOR, OK_TO_READ, OK_TO_WRITE));
        if (strategy == ReadersWritersStrategy.FAIR) {
            watched.add(TURNSTILE);
        }
        return List.of(redis.observer("redis: monitor", watched, List.of(
                new SyncObserver.Value("reading", readingKey), new SyncObserver.Value("writing", writingKey),
                new SyncObserver.Value("writers waiting", waitingWritersKey))));
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(redis);
    }

    @Override
    public Outcome judge(RunSummary summary) {
        Map<String, Long> violations = new LinkedHashMap<>();
        put(violations, EXCLUSION, exclusions.sum());
        put(violations, TORN, torn.sum());
        put(violations, STARVATION, starved.sum());
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("reads", reads.sum());
        metrics.put("writes", writes.sum());
        metrics.put("exclusionViolations", exclusions.sum());
        metrics.put("tornReads", torn.sum());
        metrics.put("starvedWrites", starved.sum());
        metrics.put("longestWriterWaitMs", longestWriterWait.get() / 1_000_000);
        metrics.put("longestReaderWaitMs", longestReaderWait.get() / 1_000_000);
        metrics.put("mostReadsPastAWriter", mostBypasses.get());
        String waits = "The longest a writer waited was " + longestWriterWait.get() / 1_000_000 + " ms" + worstWait()
                + "; the longest a reader waited, " + longestReaderWait.get() / 1_000_000 + " ms.";
        if (exclusions.sum() > 0 || torn.sum() > 0) {
            String what = (exclusions.sum() > 0 ? "A writer wrote while others were inside. " : "")
                    + (torn.sum() > 0 ? "Readers saw half-written documents. " : "")
                    + (starved.sum() > 0 ? "Besides, " + count(starved.sum(), "write") + " starved: more than "
                            + 2 * readers + " reads went ahead of a waiting writer. " : "");
            return new Outcome(Verdict.RACE, violations.entrySet().stream()
                    .map(kind -> kind.getValue() + " " + (kind.getValue() == 1 ? singular(kind.getKey()) : kind.getKey()))
                    .collect(Collectors.joining(", ")), what + waits, violations, metrics, List.of());
        }
        if (starved.sum() > 0) {
            return new Outcome(Verdict.RACE, count(starved.sum(), "starved write") + ": up to "
                    + count(mostBypasses.get(), "read") + " went ahead of a waiting writer",
                    "A write is starved when more than two reads per reader (" + 2 * readers + " with " + readers
                            + " readers) go ahead of its writer while it waits; here up to " + mostBypasses.get()
                            + " did: readers kept the document busy. " + waits,
                    violations, metrics, List.of());
        }
        return new Outcome(Verdict.SAFE, "readers shared, writers wrote alone; longest writer wait "
                + longestWriterWait.get() / 1_000_000 + " ms",
                reads.sum() + " reads, " + writes.sum() + " writes, no document torn. " + waits,
                violations, metrics, List.of());
    }

    /** Who waited longest, and how many reads went ahead of it, in words; empty if no writer waited. */
    private String worstWait() {
        synchronized (longestWriterWait) {
            return worstWaiter == null ? "" : " (" + worstWaiter + ", while " + count(worstBypasses, "read")
                    + " went ahead)";
        }
    }

    private static void put(Map<String, Long> map, String name, long n) {
        if (n > 0) {
            map.put(name, n);
        }
    }

    /** "torn read" for the violation kind "torn reads": every kind's name is a plural noun. */
    private static String singular(String kind) {
        return kind.substring(0, kind.length() - 1);
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** What readers and writers share: the monitor, its conditions, and how to wait on them. */
    private abstract class Client extends SyncWorker {

        final Jedis commands;
        final Monitor monitor;
        final Semaphore turnstile;
        final Condition okToRead;
        final Condition okToWrite;

        Client(WorkerContext context, SyncClient client) {
            super(context, client);
            this.commands = client.commands();
            this.monitor = new Monitor(constructs.mutex(client, MONITOR), PATIENCE, constructs.signalWait(PATIENCE));
            this.turnstile = constructs.mutex(client, TURNSTILE);
            this.okToRead = constructs.condition(client, OK_TO_READ);
            this.okToWrite = constructs.condition(client, OK_TO_WRITE);
        }

        /** Waits on {@code condition} while {@code blocked}: with {@code while}, or with mesa-if's {@code if}. */
        void waitFor(Condition condition, Monitor.Check blocked) throws Exception {
            Monitor.Step afterWake = () -> context.gate(ReadersWritersLab.AFTER_WAKE);
            if (strategy == ReadersWritersStrategy.MESA_IF) {
                monitor.waitIf(condition, blocked, afterWake);
            } else {
                monitor.waitWhile(condition, blocked, afterWake);
            }
        }

        long get(String key) {
            return Long.parseLong(commands.get(key));
        }

        /** Passes the turnstile in arrival order (fair only): takes it, and lets it go unless told to keep it. */
        void turnstile(boolean keep) throws InterruptedException {
            if (strategy == ReadersWritersStrategy.FAIR) {
                if (!turnstile.acquire(PATIENCE)) {
                    throw new IllegalStateException("the turnstile did not let " + context.name() + " through");
                }
                if (!keep) {
                    turnstile.release();
                }
            }
        }
    }

    private final class Reader extends Client {

        Reader(WorkerContext context, SyncClient client) {
            super(context, client);
        }

        @Override
        public void operation(int n) throws Exception {
            context.gate(ReadersWritersLab.BEFORE_REQUEST);
            long asked = context.nanoTime();
            context.state(ActorState.WAITING, "read access");
            turnstile(false);
            monitor.inside(() -> {
                waitFor(okToRead, () -> get(writingKey) > 0
                        || strategy == ReadersWritersStrategy.WRITER_PREFERENCE && get(waitingWritersKey) > 0);
                commands.incr(readingKey);
            });
            long waitedNanos = context.nanoTime() - asked;
            try {
                read(waitedNanos);
            } finally {
                monitor.inside(() -> {
                    if (commands.decr(readingKey) == 0) {
                        okToWrite.signal();
                    }
                });
            }
            context.state(ActorState.RUNNING);
        }

        /**
         * Reads the document, having waited {@code waitedNanos} to get in: the lane leaves its wait
         * first, then the wait is counted, so that the lane's wait and the figure are one length.
         */
        private void read(long waitedNanos) throws InterruptedException {
            reads.increment();
            readersInside.incrementAndGet();
            try {
                context.state(ActorState.CRITICAL, "reading");
                longestReaderWait.accumulateAndGet(waitedNanos, Math::max);
                if (writersInside.get() > 0) {
                    exclusions.increment();
                    context.violation(EXCLUSION, 1);
                }
                long first = Long.parseLong(commands.get(part1));
                context.mark(EventKind.READ, "document part 1", first);
                context.gate(ReadersWritersLab.BETWEEN_READS);
                long second = Long.parseLong(commands.get(part2));
                context.mark(EventKind.READ, "document part 2", second);
                if (first != second) {
                    torn.increment();
                    context.violation(TORN, 1);
                }
            } finally {
                readersInside.decrementAndGet();
            }
        }
    }

    private final class Writer extends Client {

        Writer(WorkerContext context, SyncClient client) {
            super(context, client);
        }

        @Override
        public void operation(int n) throws Exception {
            context.gate(ReadersWritersLab.BEFORE_REQUEST);
            long asked = context.nanoTime();
            long[] readsBefore = new long[1];
            context.state(ActorState.WAITING, "write access");
            boolean writerFirst = strategy == ReadersWritersStrategy.WRITER_PREFERENCE;
            turnstile(true);
            try {
                // Reads went ahead of this writer from when its request had its place in the queue.
                monitor.inside(() -> readsBefore[0] = reads.sum(), () -> {
                    if (writerFirst) {
                        commands.incr(waitingWritersKey);
                    }
                    waitFor(okToWrite, () -> get(readingKey) > 0 || get(writingKey) > 0);
                    if (writerFirst) {
                        commands.decr(waitingWritersKey);
                    }
                    commands.incr(writingKey);
                });
            } finally {
                if (strategy == ReadersWritersStrategy.FAIR) {
                    turnstile.release();
                }
            }
            long waitedNanos = context.nanoTime() - asked;
            long bypasses = reads.sum() - readsBefore[0];
            try {
                write(waitedNanos, bypasses);
            } finally {
                monitor.inside(() -> {
                    commands.decr(writingKey);
                    okToWrite.signal();
                    if (!writerFirst || get(waitingWritersKey) == 0) {
                        okToRead.signalAll();
                    }
                });
            }
            context.state(ActorState.RUNNING);
        }

        private void waited(long nanos, long bypasses) {
            synchronized (longestWriterWait) {
                if (nanos > longestWriterWait.get()) {
                    longestWriterWait.set(nanos);
                    worstWaiter = context.name();
                    worstBypasses = bypasses;
                }
            }
            mostBypasses.accumulateAndGet(bypasses, Math::max);
            if (bypasses > 2L * readers) {
                starved.increment();
                context.violation(STARVATION, 1);
            }
        }

        /**
         * Writes the document, having waited {@code waitedNanos} while {@code bypasses} reads went
         * ahead: the lane leaves its wait first, then the wait is counted (a starved write marked
         * there), so that the lane's wait and the figure are one length.
         */
        private void write(long waitedNanos, long bypasses) throws InterruptedException {
            writersInside.incrementAndGet();
            try {
                context.state(ActorState.CRITICAL, "writing");
                waited(waitedNanos, bypasses);
                if (readersInside.get() > 0 || writersInside.get() > 1) {
                    exclusions.increment();
                    context.violation(EXCLUSION, 1);
                }
                long version = versions.incrementAndGet();
                commands.set(part1, Long.toString(version));
                context.mark(EventKind.WRITE, "document part 1", version);
                context.gate(ReadersWritersLab.BETWEEN_WRITES);
                commands.set(part2, Long.toString(version));
                context.mark(EventKind.WRITE, "document part 2", version);
                writes.increment();
            } finally {
                writersInside.decrementAndGet();
            }
        }
    }
}
