package dev.racelab.engine;

import dev.racelab.engine.lab.Lab;
import dev.racelab.support.Poll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Workers that stay busy and get nowhere (they record a retry every millisecond, for ever) are
 * progress to the supervisor's eye; the lab's {@link Scenario#waitingSince} is what ends such a
 * run at its timeout, with the lab's diagnosis. On a manual clock: the timeout passes only when
 * the test says so.
 */
@Tag("engine")
class LivenessTest {

    private static final LabProfile PROFILE = new LabProfile("busy", "Busy", "Workers retry for ever.", Set.of(),
            List.of(Busy.values()), List.of(), new LabProfile.Crew("worker", 2, 1, 4), 1, List.of());

    enum Busy implements Strategy {
        RETRYING(About.broken("retrying", "Retrying", "retry for ever, never done"));

        private final About about;

        Busy(About about) {
            this.about = about;
        }

        @Override
        public About about() {
            return about;
        }
    }

    /** Both workers retry for ever; the lab says worker-1 has waited since the run's first retry. */
    private static final class BusyLab implements Lab {

        /** The supervisor's polls with the clock at the timeout: each is followed by its decision. */
        final AtomicInteger pollsAtTheTimeout = new AtomicInteger();
        volatile long timeoutNanos = Long.MAX_VALUE;

        @Override
        public LabProfile profile() {
            return PROFILE;
        }

        @Override
        public Scenario open(RunSetup setup) {
            return new Scenario() {
                private long since = Long.MAX_VALUE;

                @Override
                public LabWorker worker(WorkerContext context) {
                    return n -> {
                        while (!context.stopping()) {
                            context.mark(EventKind.RETRY, "again", 0);
                            Thread.sleep(1);
                        }
                    };
                }

                @Override
                public long waitingSince(RunSummary summary) {
                    if (summary.recorder().clock().nanos() == timeoutNanos) {
                        pollsAtTheTimeout.incrementAndGet();
                    }
                    for (long seq = 0; since == Long.MAX_VALUE && seq < summary.recorder().size(); seq++) {
                        if (summary.recorder().get(seq).kind() == EventKind.RETRY) {
                            since = summary.recorder().get(seq).nanos();
                        }
                    }
                    return since;
                }

                @Override
                public Outcome diagnose(RunSummary summary) {
                    return new Outcome(Verdict.STUCK, "livelock: worker-1 waited "
                            + (summary.recorder().clock().nanos() - since) / 1_000_000_000 + " s", "", Map.of("livelocked workers", 2L),
                            Map.of(), List.of());
                }

                @Override
                public Outcome judge(RunSummary summary) {
                    return new Outcome(Verdict.SAFE, "all done", "", Map.of(), Map.of(), List.of());
                }

                @Override
                public void close() {
                }
            };
        }
    }

    /**
     * The clock stands still until the workers are busy (the first retry at 0 s), then moves to
     * the timeout exactly, where the run goes on through two polls, and one millisecond past it,
     * where it ends with the lab's diagnosis. No real time is measured: a busy machine only makes
     * each step slower.
     */
    @Test
    void busyWorkersGettingNowhereEndTheRunAtItsTimeoutWithTheLabsDiagnosis() throws Exception {
        ManualClock clock = new ManualClock();
        BusyLab lab = new BusyLab();
        Duration timeout = Duration.ofSeconds(3);
        Run run = new Run(lab, lab.defaults().withTimeout(timeout), clock, 100_000);
        run.start();
        assertTrue(Poll.eventually(Duration.ofSeconds(30), () -> run.recorder().snapshot().stream()
                .anyMatch(e -> e.kind() == EventKind.RETRY)), "the workers began to retry");

        lab.timeoutNanos = timeout.toNanos();
        clock.advance(timeout);
        // The second poll at the timeout comes after the first one's decision: the run went on.
        assertTrue(Poll.eventually(Duration.ofSeconds(30), () -> lab.pollsAtTheTimeout.get() >= 2),
                "the supervisor polled twice with the clock at the timeout");
        assertFalse(run.outcome().isDone(), "at the timeout, not past it, the run goes on");
        clock.advance(Duration.ofMillis(1));
        Outcome outcome = run.awaitOutcome(Duration.ofSeconds(30));

        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        assertEquals("livelock: worker-1 waited 3 s", outcome.headline());
        assertEquals(2L, outcome.violations().get("livelocked workers"));
        assertTrue(run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.RETRY).count() > 2,
                "the workers were busy all along");
    }
}
