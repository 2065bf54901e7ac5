package dev.racelab.engine;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lane that stands for a worker on another machine (a class's participant's): the events it
 * relays go at the times they happened there, and so does what the run records on it itself, its
 * operations' ends and its last state, never at the moment the run heard of them, and never before
 * what the lane already shows.
 */
@Tag("engine")
class RelayedLaneTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void anOperationsEndGoesWhereItEndedThereNotWhenTheRunHeardOfIt() throws Exception {
        MemoryCounterLab lab = new MemoryCounterLab();
        ManualClock clock = new ManualClock(1_000 * MS);
        Experiment relaying = new Experiment() {
            @Override
            public LabProfile profile() {
                return lab.profile();
            }

            @Override
            public Scenario open(RunSetup setup) {
                return new Scenario() {
                    @Override
                    public LabWorker worker(WorkerContext context) {
                        return n -> {
                            // Heard now, happened earlier there: a read and a write, then the end.
                            context.relay(2_000 * MS + n * 100 * MS, EventKind.READ, "value", n);
                            context.relay(2_010 * MS + n * 100 * MS, EventKind.WRITE, "value", n + 1);
                            context.relayedAt(2_020 * MS + n * 100 * MS);
                            clock.advance(Duration.ofSeconds(5));
                        };
                    }

                    @Override
                    public Outcome judge(RunSummary summary) {
                        return new Outcome(Verdict.SAFE, "relayed", "", java.util.Map.of(), java.util.Map.of(), List.of());
                    }
                };
            }
        };
        Run run = new Run(relaying, lab.defaults().withWorkers(1).withOps(2), clock);
        run.start();
        run.awaitOutcome(Duration.ofSeconds(10));
        List<Event> lane = run.recorder().snapshot().stream().filter(e -> e.actor() == 1).toList();
        List<Long> ends = lane.stream().filter(e -> e.kind() == EventKind.OP_END).map(Event::nanos).toList();
        assertEquals(List.of(2_020 * MS, 2_120 * MS), ends, "each operation ends where it ended there: " + lane);
        Event last = lane.get(lane.size() - 1);
        assertEquals(EventKind.STATE, last.kind());
        assertEquals(ActorState.DONE.ordinal(), last.value());
        assertEquals(2_120 * MS, last.nanos(), "done when its last operation ended there");
        for (int i = 1; i < lane.size(); i++) {
            assertTrue(lane.get(i).nanos() >= lane.get(i - 1).nanos(), "in time order: " + lane);
        }
    }
}
