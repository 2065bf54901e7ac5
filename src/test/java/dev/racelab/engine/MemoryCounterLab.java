package dev.racelab.engine;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A lab for engine tests: workers increment a plain Java field, read and write separated by a
 * gate. It races on the JVM's memory instead of a database, which is all the engine needs to be
 * tested against: gates, steps, stops and verdicts.
 */
final class MemoryCounterLab implements Lab {

    static final Gate BEFORE = new Gate("before-read", "before reading");
    static final Gate AFTER = new Gate("after-read", "between read and write");
    static final Gate RESTING = Gate.stretching("resting", "strategy 'rest' only: thinking after the write");
    static final Strategy UNSAFE = new Strategy("unsafe", "Unsafe", "read, then write", true);
    static final Strategy LOCKED = new Strategy("locked", "Locked", "read and write under a lock", false);
    static final Strategy HANG = new Strategy("hang", "Hang", "never finishes", true);
    static final Strategy FAIL = new Strategy("fail", "Fail", "throws", true);
    static final Strategy REST = new Strategy("rest", "Rest", "read, then write, then think a while", true);

    final AtomicLong value = new AtomicLong();
    final LongAdder committed = new LongAdder();
    final Object lock = new Object();

    @Override
    public String id() {
        return "memory-counter";
    }

    @Override
    public String title() {
        return "Memory counter";
    }

    @Override
    public String story() {
        return "Threads increment a field.";
    }

    @Override
    public Set<Service> services() {
        return Set.of();
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(UNSAFE, LOCKED, HANG, FAIL, REST);
    }

    @Override
    public List<Gate> gates() {
        return List.of(BEFORE, AFTER, RESTING);
    }

    @Override
    public String workerRole() {
        return "worker";
    }

    @Override
    public int defaultWorkers() {
        return 2;
    }

    @Override
    public int defaultOps() {
        return 1;
    }

    @Override
    public int maxWorkers() {
        return 100;
    }

    @Override
    public Scenario open(RunSetup setup) {
        value.set(0);
        committed.reset();
        return new Scenario() {
            @Override
            public LabWorker worker(WorkerContext context) {
                return n -> {
                    context.gate(BEFORE);
                    switch (setup.strategy().id()) {
                        case "locked" -> {
                            synchronized (lock) {
                                increment(context);
                            }
                        }
                        case "hang" -> {
                            context.state(ActorState.WAITING, "nothing");
                            new java.util.concurrent.CountDownLatch(1).await();
                        }
                        case "fail" -> throw new IllegalStateException("the lab broke on purpose");
                        case "rest" -> {
                            increment(context);
                            context.state(ActorState.THINKING, "after the write");
                            context.gate(RESTING);
                            context.state(ActorState.RUNNING);
                        }
                        default -> increment(context);
                    }
                    committed.increment();
                };
            }

            private void increment(WorkerContext context) throws InterruptedException {
                long read = value.get();
                context.mark(EventKind.READ, "value", read);
                context.gate(AFTER);
                value.set(read + 1);
                context.mark(EventKind.WRITE, "value", read + 1);
                if (value.get() != read + 1) {
                    context.violation("lost", 1);
                }
            }

            @Override
            public Outcome judge(RunSummary summary) {
                long lost = committed.sum() - value.get();
                return lost > 0
                        ? new Outcome(Verdict.RACE, lost + " lost", "", Map.of("lost", lost), Map.of(), List.of())
                        : new Outcome(Verdict.SAFE, "all counted", "", Map.of(), Map.of("value", value.get()),
                                List.of());
            }

            @Override
            public void close() {
            }
        };
    }
}
