package dev.racelab.labs.philosophers;

import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Recorder;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.redis.sync.Constructs;
import dev.racelab.labs.support.RedisFixture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.racelab.labs.philosophers.PhilosophersScenario.DEADLOCKED;
import static dev.racelab.labs.philosophers.PhilosophersScenario.LIVELOCKED;
import static dev.racelab.labs.philosophers.PhilosophersScenario.MEASURED;
import static dev.racelab.labs.philosophers.PhilosophersScenario.STARVING;

/**
 * The dining philosophers' oracle: when the run stalls it builds the wait-for graph from Redis
 * (who holds each fork, who is in each fork's queue) and names the cycle, and marks it on the
 * timeline (a violation on each philosopher in the cycle, and a note whose value is the
 * philosopher it waits for, which the table view draws as arrows). A philosopher hungry for longer
 * than the run's timeout while the others stay busy ({@link #waitingSince}) ends the run too: a
 * livelock when nobody ate meanwhile and forks went back and forth, starvation when the others
 * ate. Meals and hunger are folded from the run's events ({@link Hunger}), as the table view folds
 * them, and measured at one instant (a note on the run's lane), so the verdict, the panels and the
 * picture show the same numbers; who was starving is judged as the poll that ended the run saw it
 * (the philosophers eat on until they are stopped, after the diagnosis).
 *
 * <p>Supervisor thread only: the fold, the last poll and the seating are all its.
 */
final class PhilosophersVerdict {

    private final RedisFixture redis;
    private final Constructs constructs;
    /** The forks (and the waiter's seats) whose holders and queues make the wait-for graph. */
    private final List<String> semaphores;
    private final int n;
    /** Per philosopher (0-based): its actor id. Written as workers are made ({@link #seat}), then read. */
    private final int[] actors;
    /** Meals and hunger folded from the log, up to {@code folded}. */
    private final Hunger hunger = new Hunger();
    private long folded;
    /** The fold as the supervisor's last poll saw it ({@link #waitingSince}): what the run decided to end on. */
    private Hunger.Snapshot lastPoll;

    PhilosophersVerdict(RedisFixture redis, List<String> semaphores, int n) {
        this.redis = redis;
        this.constructs = redis.constructs();
        this.semaphores = List.copyOf(semaphores);
        this.n = n;
        this.actors = new int[n];
    }

    /** Philosopher {@code index} (0-based) is actor {@code actor} on the timeline. */
    void seat(int index, int actor) {
        actors[index] = actor;
    }

    /**
     * When the philosopher hungry longest got hungry, from the events so far. When that is longer
     * ago than the timeout, the run may end on it: first every event recorded until now is folded,
     * those still being stored too (a meal just eaten must not go unseen), and the fold is kept
     * as it stands ({@link #lastPoll}) for the diagnosis.
     */
    long waitingSince(RunSummary summary) {
        Recorder recorder = summary.recorder();
        folded = recorder.drain(folded, Integer.MAX_VALUE, hunger::accept);
        long now = recorder.clock().nanos();
        if (hunger.hungrySince() != Long.MAX_VALUE && now - hunger.hungrySince() > summary.timeout().toNanos()) {
            foldUpTo(recorder, recorder.claimed());
        }
        lastPoll = hunger.snapshot(now);
        return hunger.hungrySince();
    }

    /**
     * No progress for the timeout, or a philosopher hungry for longer: a deadlock if Redis shows a
     * cycle of waits, else a livelock (nobody ate, forks went back and forth), else starvation
     * (the others ate), else stuck.
     */
    Outcome diagnose(RunSummary summary) {
        WaitForGraph graph = waitForGraph();
        Outcome deadlock = deadlock(summary, graph);
        if (deadlock != null) {
            return deadlock;
        }
        long asOf = measure(summary.recorder());
        Hunger.Hungriest hungriest = hunger.hungriest(philosophers(), asOf);
        long timeout = summary.timeout().toNanos();
        // Judged as the run saw it when it decided to end (its last poll), and as of now: the
        // philosophers go on until they are stopped, and one who ate in between starved all the same.
        Hunger.Snapshot decided = lastPoll != null ? lastPoll : hunger.snapshot(asOf);
        List<Integer> starving = hunger.starving(philosophers(), decided, asOf, timeout);
        if (starving.isEmpty()) {
            String who = graph.edges().stream().map(e -> e.waiter() + " waits for " + e.resource() + ", held by "
                    + e.holder()).collect(Collectors.joining("; "));
            return new Outcome(Verdict.STUCK, "no progress, but no cycle of waiting either",
                    (who.isEmpty() ? "Nobody waits in a fork's queue." : who + ".") + " " + hungerText(hungriest) + " "
                            + mealsText(), Map.of(), metrics(hungriest), List.of());
        }
        String who = nameOf(hungriest.actor()) + " hungry " + Hunger.words(hungriest.millis());
        boolean nobodyAte = decided.lastMealNanos() < decided.at() - timeout;
        long putBack = decided.retriesSinceLastMeal();
        String violation;
        String headline;
        String why;
        if (nobodyAte && putBack > 0) {
            violation = LIVELOCKED;
            headline = "livelock: " + who + "; nobody ate, forks put back " + putBack + " times";
            why = "The philosophers keep taking a fork, finding the other one taken and putting theirs back, in "
                    + "step with each other: all busy, none eating. A backoff drawn at random (a range at the "
                    + "backoff gate) breaks the step.";
        } else {
            violation = STARVING;
            headline = "starvation: " + who + (starving.size() > 1 ? "; " + starving.size() + " philosophers "
                    + "hungry longer than the " + summary.timeout().toMillis() + " ms timeout" : "");
            why = nobodyAte ? "Nobody has eaten for longer than the timeout, but nobody is in a cycle of waits."
                    : "The others went on eating, but " + starving.stream().map(this::nameOf)
                            .collect(Collectors.joining(", ")) + " kept missing the forks.";
        }
        List<Long> places = new ArrayList<>();
        for (int actor : starving) {
            Event mark = summary.recorder().record(actor, EventKind.VIOLATION, violation, 1);
            if (mark != null) {
                places.add(mark.seq());
            }
        }
        summary.recorder().record(Run.RUN_ACTOR, EventKind.DIAGNOSIS, headline, starving.size());
        return new Outcome(Verdict.STUCK, headline, why + " " + hungerText(hungriest) + " " + mealsText(),
                Map.of(violation, (long) starving.size()), metrics(hungriest), places);
    }

    /**
     * The forks' queues after a quiet second: a cycle there is for ever, since every waiter blocks
     * until its fork comes and every holder is alive (its lease is renewed) and waiting itself.
     */
    Outcome deadlock(RunSummary summary) {
        return deadlock(summary, waitForGraph());
    }

    /**
     * Every worker ended: all ate every meal, unless the user stopped the run first, which says
     * nothing about starving (a philosopher still hungry then had not waited for the timeout).
     */
    Outcome judge(RunSummary summary) {
        long asOf = measure(summary.recorder());
        Hunger.Hungriest hungriest = hunger.hungriest(philosophers(), asOf);
        String headline = summary.stoppedByUser() ? "no deadlock before the stop" : "every philosopher ate; no deadlock";
        return new Outcome(Verdict.SAFE, headline, mealsText() + " " + hungerText(hungriest), Map.of(),
                metrics(hungriest), List.of());
    }

    /** Who waits in which fork's (or seat's) queue for whom, as Redis has it. */
    private WaitForGraph waitForGraph() {
        WaitForGraph graph = new WaitForGraph();
        for (String name : semaphores) {
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
        long asOf = measure(summary.recorder());
        Hunger.Hungriest hungriest = hunger.hungriest(philosophers(), asOf);
        String path = cycle.stream().map(WaitForGraph.Edge::waiter).collect(Collectors.joining(" → "))
                + " → " + cycle.get(0).waiter();
        String headline = PhilosophersScenario.cycleWords(cycle.size()) + ": " + path;
        List<Long> places = mark(summary.recorder(), cycle, headline);
        String how = cycle.stream().map(e -> e.waiter() + " waits for " + e.resource() + ", held by " + e.holder())
                .collect(Collectors.joining("; "));
        return new Outcome(Verdict.DEADLOCK, headline,
                "Each holds one fork and waits for the next one's, and none lets go: " + how + ". "
                        + hungerText(hungriest) + " " + mealsText(),
                Map.of(DEADLOCKED, (long) cycle.size()), metrics(hungriest), places);
    }

    /** Puts the cycle on the timeline: a violation and a note per edge, the headline on the run's lane. */
    private List<Long> mark(Recorder recorder, List<WaitForGraph.Edge> cycle, String headline) {
        List<Long> places = new ArrayList<>();
        for (WaitForGraph.Edge edge : cycle) {
            int waiter = actors[indexOf(edge.waiter())];
            Event violation = recorder.record(waiter, EventKind.VIOLATION, DEADLOCKED, 1);
            if (violation != null) {
                places.add(violation.seq());
            }
            recorder.record(waiter, EventKind.WAITS_FOR, edge.resource() + ", held by " + edge.holder(),
                    actors[indexOf(edge.holder())]);
        }
        recorder.record(Run.RUN_ACTOR, EventKind.DIAGNOSIS, headline, cycle.size());
        return places;
    }

    /**
     * Notes the instant the verdict measures hunger at, on the run's lane, and folds every event
     * before it; returns the instant. A reader of the record folding the same events up to the same
     * note measures the same hunger.
     */
    private long measure(Recorder recorder) {
        Event instant = recorder.record(Run.RUN_ACTOR, EventKind.MEASURED, MEASURED, 0);
        if (instant == null) {
            folded = recorder.drain(folded, Integer.MAX_VALUE, hunger::accept);
            return recorder.clock().nanos();
        }
        foldUpTo(recorder, instant.seq());
        return instant.nanos();
    }

    /** Folds the events before {@code seq}, waiting (a second at most) for those still being stored by their threads. */
    private void foldUpTo(Recorder recorder, long seq) {
        long giveUp = System.nanoTime() + 1_000_000_000L;
        while (folded < seq && System.nanoTime() < giveUp) {
            folded = recorder.drain(folded, (int) (seq - folded), hunger::accept);
            Thread.onSpinWait();
        }
    }

    private int indexOf(String philosopher) {
        return Integer.parseInt(philosopher.substring(philosopher.lastIndexOf('-') + 1)) - 1;
    }

    private String nameOf(int actor) {
        return "philosopher-" + (indexOfActor(actor) + 1);
    }

    private List<Integer> philosophers() {
        List<Integer> list = new ArrayList<>();
        for (int actor : actors) {
            list.add(actor);
        }
        return list;
    }

    /** "philosopher-3 was hungry longest: 1183 ms, and still is." */
    private String hungerText(Hunger.Hungriest hungriest) {
        return nameOf(hungriest.actor()) + " was hungry longest: " + Hunger.words(hungriest.millis())
                + (hungriest.ongoing() ? ", and still is." : ".");
    }

    private String mealsText() {
        StringBuilder text = new StringBuilder("Meals:");
        for (int i = 0; i < n; i++) {
            text.append(i == 0 ? " " : ", ").append("philosopher-").append(i + 1).append(' ')
                    .append(hunger.meals(actors[i]));
        }
        return text.append('.').toString();
    }

    private Map<String, Number> metrics(Hunger.Hungriest hungriest) {
        Map<String, Number> metrics = new LinkedHashMap<>();
        long total = 0;
        int fewest = Integer.MAX_VALUE;
        for (int actor : actors) {
            total += hunger.meals(actor);
            fewest = Math.min(fewest, hunger.meals(actor));
        }
        metrics.put("meals", total);
        metrics.put("fewestMeals", fewest);
        metrics.put("longestHungerMs", hungriest.millis());
        metrics.put("hungriestPhilosopher", indexOfActor(hungriest.actor()) + 1);
        metrics.put("forksPutBack", hunger.retries());
        for (int i = 0; i < n; i++) {
            metrics.put("meals:philosopher-" + (i + 1), hunger.meals(actors[i]));
        }
        return metrics;
    }

    private int indexOfActor(int actor) {
        for (int i = 0; i < n; i++) {
            if (actors[i] == actor) {
                return i;
            }
        }
        return -1;
    }
}
