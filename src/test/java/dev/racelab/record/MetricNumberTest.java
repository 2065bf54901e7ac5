package dev.racelab.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A metric reads back as the number that was written: a whole {@code Double} stays a {@code Double}. */
@Tag("engine")
class MetricNumberTest {

    @Test
    void aMetricReadsBackEqualToTheOneWritten() {
        for (Number written : new Number[] {1.0, 0.0, 113.418, -2.5, 1.0E10, 3L, 0L, -7L, Long.MAX_VALUE}) {
            assertEquals(written, RecordingFormat.number(written.toString()), written + " as written");
        }
        assertEquals(1.0E20, RecordingFormat.number("100000000000000000000"), "past a long's range");
    }
}
