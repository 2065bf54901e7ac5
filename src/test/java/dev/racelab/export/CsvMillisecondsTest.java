package dev.racelab.export;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Locale;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The CSV's times are written as {@code String.format("%.3f", nanos / 1e6)} writes them, at a fraction of its cost. */
@Tag("engine")
class CsvMillisecondsTest {

    @Test
    void everyTimeIsWrittenAsStringFormatWritesIt() {
        SplittableRandom random = new SplittableRandom(26);
        for (int i = 0; i < 200_000; i++) {
            long nanos = switch (i % 4) {
                case 0 -> random.nextLong(10_000);
                case 1 -> random.nextLong(1_000_000_000L);
                case 2 -> random.nextLong(10_000_000_000_000L);
                default -> random.nextLong(1_000_000) * 1000 + 500;  // exactly half a thousandth
            };
            StringBuilder b = new StringBuilder();
            CsvExport.milliseconds(b, nanos);
            assertEquals(String.format(Locale.ROOT, "%.3f", nanos / 1_000_000.0), b.toString(), "at " + nanos + " ns");
        }
    }
}
