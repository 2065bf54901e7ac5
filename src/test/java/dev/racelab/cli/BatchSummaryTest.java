package dev.racelab.cli;

import dev.racelab.engine.RunRecord;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The text summary of a batch of runs: the batch's own lines count every run, and the lines under
 * "last run:" describe that run alone, so a figure printed there agrees with the run it names.
 */
@Tag("lab")
class BatchSummaryTest {

    @TempDir
    Path dir;

    @Test
    void theLastRunsLinesGiveItsOwnLostIncrementsAndTheBatchLineTheTotal() throws Exception {
        Path file = dir.resolve("batch.racelab");
        // Two clients that both pause 20 ms between reading and writing back lose increments in every run.
        CliRun result = CliRun.of(TestServers.childEnvironment(), "run", "counter", "--workers", "2", "--ops", "5",
                "--delay", "before-read=0", "--delay", "after-read=20", "--runs", "3", "--record", file.toString());
        String text = result.out();
        assertEquals(0, result.code(), result.err().toString());

        Recording recording = new RecordingReader(new Labs(TestServers.backends()))
                .read(file);
        long last = lost(recording.last());
        long all = recording.runs().stream().mapToLong(BatchSummaryTest::lost).sum();
        assertTrue(all > last, "the runs before the last lost increments too: " + all + " in all, " + last
                + " in the last");
        int at = text.indexOf("last run:\n");
        assertTrue(at > 0, text);
        String batch = text.substring(0, at);
        String lastRun = text.substring(at);
        assertTrue(lastRun.contains("\n  lost increments: " + last + "\n"), "the last run's own count: " + text);
        assertTrue(batch.contains("\n  lost increments: " + all + " in all\n"), "the batch's total: " + text);
        long lastEvents = recording.last().events().size();
        assertTrue(lastRun.contains("\n  " + lastEvents + " events\n"), "the last run's own events: " + text);
    }

    private static long lost(RunRecord run) {
        return run.outcome().violations().getOrDefault("lost increments", 0L);
    }
}
