package dev.racelab.engine.explore;

import dev.racelab.engine.Chooser;
import dev.racelab.engine.Schedule;
import dev.racelab.engine.Steering;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The depth-first search over a model of workers at their gates, without servers: each worker
 * makes its passages in turn and then finishes, as a scheduled run's workers do. The counts are
 * the numbers of interleavings: a multinomial for the whole space, CHESS's for a preemption bound.
 */
@Tag("engine")
class DepthFirstTest {

    /** Runs every schedule {@code search} gives on workers making {@code passages} each; the schedules run. */
    private static List<Schedule> exhaust(Search search, int... passages) {
        List<Schedule> ran = new ArrayList<>();
        Chooser chooser;
        while ((chooser = search.next()) != null) {
            int[] left = passages.clone();
            List<Steering.Step> steps = new ArrayList<>();
            int previous = -1;
            while (true) {
                long enabled = 0;
                for (int w = 0; w < left.length; w++) {
                    if (left[w] > 0) {
                        enabled |= 1L << w;
                    }
                }
                if (enabled == 0) {
                    break;
                }
                int worker = chooser.choose(new Chooser.Point(steps.size(), enabled, previous));
                steps.add(new Steering.Step(worker, enabled));
                left[worker]--;
                previous = worker;
            }
            search.ran(steps);
            int[] order = steps.stream().mapToInt(Steering.Step::worker).toArray();
            ran.add(Schedule.of(order));
            assertTrue(ran.size() < 100_000, "the search ends");
        }
        return ran;
    }

    @Test
    void everyInterleavingOnceAsManyAsTheMultinomialCount() {
        List<Schedule> two = exhaust(new DepthFirst(Integer.MAX_VALUE), 2, 2);
        assertEquals(6, two.size(), "4! / (2! 2!)");
        assertEquals(6, new HashSet<>(two).size(), "each once");
        List<Schedule> three = exhaust(new DepthFirst(Integer.MAX_VALUE), 4, 4, 4);
        assertEquals(34_650, three.size(), "12! / (4! 4! 4!)");
        assertEquals(34_650, new HashSet<>(three).size());
    }

    @Test
    void aPreemptionBoundKeepsTheSchedulesWithAtMostThatManyPreemptions() {
        assertEquals(6, exhaust(new DepthFirst(0), 4, 4, 4).size(), "no preemption: one worker after another, 3!");
        assertEquals(60, exhaust(new DepthFirst(1), 4, 4, 4).size());
        assertEquals(402, exhaust(new DepthFirst(2), 4, 4, 4).size());
        List<Schedule> three = exhaust(new DepthFirst(3), 4, 4, 4);
        assertEquals(1_752, three.size());
        Set<Schedule> distinct = new HashSet<>(three);
        assertEquals(three.size(), distinct.size(), "each once");
    }

    @Test
    void theFirstScheduleLetsEachWorkerCarryOnAndPreemptsNobody() {
        DepthFirst search = new DepthFirst(2);
        List<Schedule> ran = exhaust(search, 2, 2);
        assertEquals(Schedule.of(0, 0, 1, 1), ran.get(0));
        assertEquals(0, search.diverged());
    }
}
