package dev.racelab.engine;

import dev.racelab.engine.lab.Lab;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A lab for engine tests: workers increment a plain Java field, read and write separated by a
 * gate. It races on the JVM's memory instead of a database, which is all the engine needs to be
 * tested against: gates, steps, stops and verdicts. Some strategies misbehave on purpose, to test
 * how the engine copes.
 */
final class MemoryCounterLab implements Lab {

    static final Gate BEFORE = new Gate("before-read", "before reading");
    static final Gate AFTER = new Gate("after-read", "between read and write");
    static final Gate RESTING = Gate.stretching("resting", "strategy 'rest' only: thinking after the write");
    static final Gate FALLS = Gate.fault("falls-over", "a worker with a rule here throws before writing");

    enum Strategies implements Strategy {
        UNSAFE(About.broken("unsafe", "Unsafe", "read, then write")),
        LOCKED(About.fix("locked", "Locked", "read and write under a lock")),
        HANG(About.broken("hang", "Hang", "never finishes")),
        FAIL(About.broken("fail", "Fail", "throws")),
        REST(About.broken("rest", "Rest", "read, then write, then think a while")),
        /** The lab's own code trips an assertion while opening the run. */
        OPEN_ERROR(About.broken("open-error", "Open error", "opening the run throws an AssertionError")),
        /** A worker dies of an Error, not an Exception. */
        WORKER_ERROR(About.broken("worker-error", "Worker error", "a worker throws an AssertionError")),
        /** Workers that ignore interrupts and aborts until the test lets them go. */
        STUBBORN(About.broken("stubborn", "Stubborn", "workers that will not stop")),
        /** Workers hang; a server observer fails on every poll. */
        HANG_OBSERVED(About.broken("hang-observed", "Hang, observed", "workers hang while an observer fails"));

        private final About about;

        Strategies(About about) {
            this.about = about;
        }

        @Override
        public About about() {
            return about;
        }
    }

    static final Switch<Integer> STEP = Switch.integer("step", "Step", "how much each increment adds", "", 1, 1, 10);

    private static final LabProfile PROFILE = new LabProfile("memory-counter", "Memory counter",
            "Threads increment a field.", Set.of(), List.of(Strategies.values()), List.of(BEFORE, AFTER, RESTING, FALLS),
            new LabProfile.Crew("worker", 2, 1, 100), 1, List.of(STEP));

    final AtomicLong value = new AtomicLong();
    final LongAdder committed = new LongAdder();
    final Object lock = new Object();
    /** Opened by the test to let stubborn workers go. */
    final CountDownLatch letGo = new CountDownLatch(1);

    @Override
    public LabProfile profile() {
        return PROFILE;
    }

    @Override
    public Scenario open(RunSetup setup) {
        Strategies strategy = (Strategies) setup.strategy();
        if (strategy == Strategies.OPEN_ERROR) {
            throw new AssertionError("the lab tripped over its own assertion");
        }
        value.set(0);
        committed.reset();
        long step = setup.get(STEP);
        return new Scenario() {
            @Override
            public LabWorker worker(WorkerContext context) {
                return n -> {
                    context.gate(BEFORE);
                    switch (strategy) {
                        case LOCKED -> {
                            synchronized (lock) {
                                increment(context, step);
                            }
                        }
                        case HANG, HANG_OBSERVED -> {
                            context.state(ActorState.WAITING, "nothing");
                            new CountDownLatch(1).await();
                        }
                        case FAIL -> throw new IllegalStateException("the lab broke on purpose");
                        case WORKER_ERROR -> throw new AssertionError("the worker tripped over an assertion");
                        case STUBBORN -> {
                            context.state(ActorState.WAITING, "its own latch");
                            while (letGo.getCount() > 0) {
                                try {
                                    letGo.await();
                                } catch (InterruptedException ignored) {
                                    // Stubborn on purpose: this worker does not stop when asked.
                                }
                            }
                        }
                        case REST -> {
                            increment(context, step);
                            context.state(ActorState.THINKING, "after the write");
                            context.gate(RESTING);
                            context.state(ActorState.RUNNING);
                        }
                        case UNSAFE, OPEN_ERROR -> increment(context, step);
                    }
                    committed.add(step);
                };
            }

            private void increment(WorkerContext context, long step) throws InterruptedException {
                long read = value.get();
                context.mark(EventKind.READ, "value", read);
                context.gate(AFTER);
                if (context.fault(FALLS)) {
                    throw new IllegalStateException(context.name() + " fell over at the fault gate");
                }
                value.set(read + step);
                context.mark(EventKind.WRITE, "value", read + step);
                if (value.get() != read + step) {
                    context.violation("lost", 1);
                }
            }

            @Override
            public List<ServerObserver> observers() {
                if (strategy != Strategies.HANG_OBSERVED) {
                    return List.of();
                }
                return List.of(new ServerObserver() {
                    @Override
                    public List<String> lanes() {
                        return List.of("failing server");
                    }

                    @Override
                    public void poll(LaneSink sink) throws Exception {
                        throw new java.io.IOException("the server does not answer");
                    }
                });
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
