package dev.racelab.engine;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A schedule as a recording writes it and reads it back, and what a hostile one gets. */
@Tag("engine")
class ScheduleTest {

    private static int index(String name) {
        return name.matches("client-[1-3]") ? name.charAt(7) - '1' : -1;
    }

    @Test
    void itIsReadBackAsItWasWrittenTimeIncluded() {
        Schedule schedule = Schedule.of(0, 1, Schedule.TIME, 1, 0);
        String written = schedule.describe(w -> "client-" + (w + 1));
        assertEquals("client-1 client-2 time client-2 client-1", written);
        assertEquals(schedule, Schedule.parse(written, ScheduleTest::index));
        assertArrayEquals(new int[]{2, 2, 0}, schedule.passagesPerWorker(3), "time is nobody's passage");
        assertTrue(Schedule.parse("  ", ScheduleTest::index).isEmpty());
    }

    @Test
    void aNameThatIsNoWorkersIsRefusedByName() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Schedule.parse("client-1 client-9", ScheduleTest::index));
        assertTrue(refused.getMessage().contains("'client-9'"), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Schedule.of(-1));
        assertThrows(IllegalArgumentException.class, () -> Schedule.of(Schedule.TIME + 1));
    }
}
