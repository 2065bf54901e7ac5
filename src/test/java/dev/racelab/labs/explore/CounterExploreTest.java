package dev.racelab.labs.explore;

import dev.racelab.engine.Clock;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.explore.Exploration;
import dev.racelab.engine.explore.Explorer;
import dev.racelab.engine.explore.Found;
import dev.racelab.engine.explore.Method;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every interleaving of the counter lab's gates, on a real PostgreSQL. */
@Tag("lab")
class CounterExploreTest {

    private static final Explorer.Settings ALL = new Explorer.Settings(Method.ALL, 0, 3, 1, 100_000,
            Duration.ofMinutes(2), Duration.ofMinutes(1));

    private final Lab lab = new Labs(TestServers.backends()).find("counter").orElseThrow();

    private Exploration explore(String strategy, List<Found> seen) throws Exception {
        RunSpec spec = lab.defaults().withStrategy(strategy).withWorkers(2).withOps(1);
        Explorer explorer = new Explorer(lab, spec, Clock.system(), run -> { });
        return explorer.explore(ALL, new Explorer.Listener() {
            @Override
            public void ran(Found schedule, RunRecord record) {
                seen.add(schedule);
            }
        });
    }

    @Test
    void readModifyWriteFailsInEveryScheduleWhoseTwoReadsComeBeforeEitherWrite() throws Exception {
        List<Found> seen = new ArrayList<>();
        Exploration found = explore("read-modify-write", seen);
        assertArrayEquals(new int[]{2, 2}, found.passages(), "before-read and after-read, each client");
        assertEquals(6L, found.space(), "4! / (2! 2!) interleavings");
        assertTrue(found.exhausted());
        assertEquals(6, found.schedules());
        int readsFirst = 0;
        for (Found schedule : seen) {
            // A client's first passage reads, its second writes: both reads first means the first
            // two passages are the two clients'.
            boolean bothReadsFirst = schedule.schedule().at(0) != schedule.schedule().at(1);
            if (bothReadsFirst) {
                readsFirst++;
            }
            assertEquals(bothReadsFirst ? Verdict.RACE : Verdict.SAFE, schedule.verdict(), schedule.interleaving());
        }
        assertEquals(4, readsFirst);
        assertEquals(4, found.failingCount());
        assertEquals(6, seen.stream().map(Found::schedule).distinct().count(), "every schedule once");
        Exploration.Shrunk shrunk = found.shrunk();
        assertNotNull(shrunk);
        assertEquals(1, shrunk.found().preemptions());
        assertTrue(shrunk.fewest());
        assertTrue(shrunk.confirmed());
        assertEquals(Verdict.RACE, shrunk.found().verdict());
        System.out.println(shrunk.found().interleaving() + " / " + found.schedulesPerSecond());
    }

    @Test
    void everyFixCountsEveryIncrementInEverySchedule() throws Exception {
        for (String fix : List.of("atomic-update", "select-for-update", "serializable-retry")) {
            Exploration found = explore(fix, new ArrayList<>());
            assertTrue(found.exhausted(), fix);
            assertEquals(0, found.failingCount(), fix + ": " + found.outcomes());
            System.out.println(fix + " " + found.space() + " " + java.util.Arrays.toString(found.passages()) + " " + found.diverged());
        }
    }
}
