package dev.racelab.ui.timeline;

import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.engine.view.timeline.Lane;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.EventLog;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.advisory.AdvisoryLockLab;
import dev.racelab.labs.counter.CounterLab;
import dev.racelab.labs.primitives.PrimitivesLab;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server lanes never contradict the workers: real labs run against real servers with their
 * observers on, as the window runs them, and the timeline built from the record is checked. A
 * lock the server lane draws as held by a worker must lie within one sampling interval (and its
 * grace: {@link #TOLERANCE_PERIODS} periods; and, for a hold a read reported, however long that read
 * took: it is drawn from the read's start) of a time the worker's own lane says it holds one (a
 * holding state, or the write statement that takes the row lock), and nothing is drawn as held
 * after every worker finished or after the run ended.
 */
@Tag("lab")
class ServerLaneTruthTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** One period for when within it the fact ended, and the grace of a read that came a little late. */
    private static final long TOLERANCE_PERIODS = 2;
    /** The states in which a worker says it holds a lock. */
    private static final Set<ActorState> HOLDING = Set.of(ActorState.HOLDING, ActorState.CRITICAL, ActorState.EATING);
    /** A worker paused at a gate goes on holding (or waiting) as it did before. */
    private static final Set<ActorState> GATES = Set.of(ActorState.DELAYED, ActorState.AT_GATE);

    @Test
    void selectForUpdateRowLockIsDrawnOnlyWhileItsHolderSaysItHoldsIt() throws Exception {
        checkUntilSeen("the row lock", () -> run(new CounterLab(TestServers.backends()), "select-for-update", 6, 25,
                "after-read"));
    }

    @Test
    void readModifyWriteRowLockIsDrawnOnlyAroundTheWriteThatTookIt() throws Exception {
        // The row lock is held only while an UPDATE runs, a fraction of a millisecond, and the observer
        // looks every 10 ms: a run sees it a few times at most, often not at all.
        checkUntilSeen("the row lock", () -> run(new CounterLab(TestServers.backends()), "read-modify-write", 8, 40,
                "after-read"));
    }

    @Test
    void hardenedMutexHolderIsDrawnOnlyWhileItIsInsideItsCriticalSection() throws Exception {
        checkUntilSeen("Redis's holders", () -> run(new PrimitivesLab(TestServers.backends()), "hardened-mutex", 4, 20,
                "in-critical-section"));
    }

    @Test
    void advisoryLockHolderIsDrawnOnlyWhileItBelievesItHoldsIt() throws Exception {
        checkUntilSeen("pg_locks's holders", () -> run(new AdvisoryLockLab(TestServers.backends()), "session-pinned", 4, 8,
                "after-lock"));
    }

    /**
     * Checks runs ({@code oneRun}, each checked whole) until the observer has seen a holder drawn
     * five times in all, so that the check is never of nothing: how many one run sees depends on
     * how often the machine let the observer look (a busy one, a server that flushes each commit).
     */
    private static void checkUntilSeen(String what, RunCheck oneRun) throws Exception {
        int seen = 0;
        for (int runs = 1; seen < 5; runs++) {
            assertTrue(runs <= 40, "the observer saw " + what + " held " + seen + " times in 40 runs");
            seen += oneRun.run().holdsDrawn;
        }
    }

    @FunctionalInterface
    private interface RunCheck {
        Lanes run() throws Exception;
    }

    /** Runs {@code strategy} observed, with a 5 ms delay at {@code gate}, and checks its server lanes. */
    private Lanes run(Lab lab, String strategy, int workers, int ops, String gate) throws Exception {
        RunSpec spec = lab.defaults().withStrategy(strategy).withWorkers(workers).withOps(ops)
                .withGates(GatePlan.NONE.with(gate, GateRule.fixed(5))).withObserve(true);
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertNotEquals(Verdict.ERROR, outcome.verdict(), outcome.banner());
        Lanes lanes = new Lanes(run.recorder().snapshot());
        lanes.check();
        return lanes;
    }

    /** The run's timeline as the window builds it, and each worker's own account from the record. */
    private static final class Lanes {
        final TimelineModel model;
        final long tolerance;
        final long runEnded;
        final long workersFinished;
        /** Per worker actor: the times its own lane says it holds a lock (or is being granted one). */
        final Map<Integer, List<long[]>> holding = new HashMap<>();
        /**
         * Per worker actor, for each read that reported a new hold of it: the read's time (where
         * the hold is drawn from) and when its report was recorded. The hold was true at some
         * moment between the two, and a read slowed down by a busy machine stretches that span.
         */
        final Map<Integer, Map<Long, Long>> holdReports = new HashMap<>();
        /** Server reports that had a worker both hold something and wait for that same thing. */
        final List<String> holdsAndWaits = new ArrayList<>();
        int holdsDrawn;

        Lanes(List<Event> events) {
            model = new TimelineModel(EventLog.of(events, 0));
            new Feed(EventLog.of(events, 0), model::accept).catchUp();
            long period = 0;
            for (Lane lane : model.lanes) {
                period = Math.max(period, lane.samplePeriod());
            }
            assertTrue(period > 0, "the server lanes were read");
            tolerance = TOLERANCE_PERIODS * period;
            long origin = model.origin();
            long ended = -1;
            long finished = 0;
            Map<Integer, Long> previous = new HashMap<>();
            Map<Integer, Episode> current = new HashMap<>();
            Map<Long, String> serverHolds = new HashMap<>();
            Map<Long, String> serverWaits = new HashMap<>();
            Map<Integer, Long> readTimes = new HashMap<>();
            for (Event e : events) {
                long t = e.nanos() - origin;
                if (e.kind() == EventKind.RUN_ENDED) {
                    ended = t;
                }
                if (e.kind() == EventKind.SERVER_HOLDS || e.kind() == EventKind.SERVER_WAITS) {
                    Map<Long, String> map = e.kind() == EventKind.SERVER_HOLDS ? serverHolds : serverWaits;
                    if (e.subject() == null) {
                        map.remove(e.value());
                    } else {
                        map.put(e.value(), e.subject());
                        if (e.kind() == EventKind.SERVER_HOLDS && readTimes.containsKey(e.actor())) {
                            holdReports.computeIfAbsent((int) e.value(), k -> new HashMap<>())
                                    .put(readTimes.get(e.actor()), t);
                        }
                    }
                } else if (e.kind() == EventKind.SERVER_SAMPLE) {
                    // What the previous read reported, whole: a read's events share its instant.
                    holdsAndWaits(serverHolds, serverWaits, t);
                    readTimes.put(e.actor(), t);
                }
                if (e.actor() >= model.lanes.size() || model.lanes.get(e.actor()).kind != Actor.Kind.WORKER
                        || e.kind() == EventKind.ACTOR || e.kind() == EventKind.CONNECTED) {
                    continue;
                }
                finished = Math.max(finished, t);
                List<long[]> spans = holding.computeIfAbsent(e.actor(), k -> new ArrayList<>());
                if (e.kind() == EventKind.STATE && !GATES.contains(e.state())) {
                    // A pause at a gate keeps what the worker was doing; any other state ends it.
                    Episode before = current.remove(e.actor());
                    boolean holds = HOLDING.contains(e.state());
                    if (before != null) {
                        // Waiting that ends in holding: the server granted it before the reply
                        // reached the worker, so a server that says "holds" then is right.
                        if (before.holds || holds && before.waits) {
                            spans.add(new long[] {before.start, t});
                        }
                    }
                    if (holds || e.state() == ActorState.WAITING) {
                        current.put(e.actor(), new Episode(t, holds, !holds));
                    }
                } else if (e.kind() == EventKind.WRITE) {
                    // The write statement takes the row lock: from the worker's last step before it to its answer.
                    spans.add(new long[] {previous.getOrDefault(e.actor(), t), t});
                }
                previous.put(e.actor(), t);
            }
            for (Map.Entry<Integer, Episode> open : current.entrySet()) {
                if (open.getValue().holds) {
                    holding.get(open.getKey()).add(new long[] {open.getValue().start, Long.MAX_VALUE});
                }
            }
            holdsAndWaits(serverHolds, serverWaits, ended);
            assertTrue(ended >= 0, "the run ended");
            runEnded = ended;
            workersFinished = finished;
        }

        /** Notes each worker a read showed both holding something and waiting for that same thing. */
        private void holdsAndWaits(Map<Long, String> serverHolds, Map<Long, String> serverWaits, long t) {
            serverHolds.forEach((worker, holds) -> {
                String waits = serverWaits.get(worker);
                for (String held : holds.split(", ")) {
                    if (waits != null && waits.startsWith("for " + held + ",")) {
                        holdsAndWaits.add(model.lanes.get(worker.intValue()).name + " before " + ms(t)
                                + ": the server lane says it holds " + held + " and waits " + waits);
                    }
                }
            });
        }

        void check() {
            List<String> wrong = new ArrayList<>(holdsAndWaits);
            for (Lane lane : model.lanes) {
                if (lane.kind == Actor.Kind.SERVER) {
                    for (int s = 0; s < lane.labelStart.size(); s++) {
                        String text = lane.labelText.get(s);
                        long stop = model.labelStop(lane, s);
                        // Not drawn at all (a late read's facts, ended by that very read), or drawn
                        // hatched "as of" an older read, "not read from … to …": no claim of now.
                        boolean drawnAsNow = stop > lane.labelStart.get(s) && lane.labelStale.get(s) == 0;
                        if (drawnAsNow && text != null && text.contains(" hold")
                                && stop > Math.min(runEnded, workersFinished + tolerance)) {
                            wrong.add(lane.name + " shows \"" + text + "\" until " + ms(stop) + ", after the workers finished ("
                                    + ms(workersFinished) + ") or the run ended (" + ms(runEnded) + ")");
                        }
                    }
                }
                if (lane.kind != Actor.Kind.WORKER) {
                    continue;
                }
                for (int s = 0; s < lane.stripeStart.size(); s++) {
                    if (lane.stripeState.get(s) != Lane.SERVER_HOLDS) {
                        continue;
                    }
                    long from = lane.stripeStart.get(s);
                    long to = model.stripeStop(lane, s);
                    if (to <= from) {
                        continue; // not drawn: a late read's facts, ended by that very read
                    }
                    holdsDrawn++;
                    if (to > runEnded || to > workersFinished + tolerance) {
                        wrong.add(lane.name + ": \"" + lane.stripeText.get(s) + "\" drawn until " + ms(to)
                                + ", after the workers finished (" + ms(workersFinished) + ") or the run ended (" + ms(runEnded) + ")");
                    }
                    // A hold a read reported is drawn from the read's start; it was true at some
                    // moment until the report: that long a read took is allowed on top.
                    long read = holdReports.getOrDefault(lane.actor, Map.of()).getOrDefault(from, from) - from;
                    long within = tolerance + read;
                    for (long t = from; t < to; t += 1_000_000) {
                        if (!saysItHolds(lane.actor, t, within)) {
                            wrong.add(lane.name + ": \"" + lane.stripeText.get(s) + "\" drawn " + ms(from) + "–" + ms(to)
                                    + ", but at " + ms(t) + " its own lane says it holds nothing within " + ms(within)
                                    + " (the read that saw it took " + ms(read) + ")");
                            break;
                        }
                    }
                }
            }
            assertTrue(wrong.isEmpty(), wrong.size() + " contradictions, e.g.:\n" + String.join("\n",
                    wrong.subList(0, Math.min(8, wrong.size()))));
        }

        /** Whether the worker's own lane says it holds a lock at some time within {@code within} of {@code t}. */
        boolean saysItHolds(int actor, long t, long within) {
            for (long[] span : holding.getOrDefault(actor, List.of())) {
                if (span[0] - within <= t && t <= span[1] + within) {
                    return true;
                }
            }
            return false;
        }

        private static String ms(long nanos) {
            return String.format("%.1f ms", nanos / 1e6);
        }
    }

    /** A worker's stretch of holding or waiting, as its own lane tells it. */
    private static final class Episode {
        final long start;
        final boolean holds;
        final boolean waits;

        Episode(long start, boolean holds, boolean waits) {
            this.start = start;
            this.holds = holds;
            this.waits = waits;
        }
    }
}
