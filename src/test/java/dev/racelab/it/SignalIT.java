package dev.racelab.it;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.Child;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.Watchmen;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM (what Ctrl-C and a closing terminal send) to a RaceLab that runs and records: the run in
 * progress is stopped and judged, the recording is complete up to there and says it was cut
 * short, the summary is printed, no later run or server starts, and its servers stop.
 */
@Tag("it")
class SignalIT {

    @TempDir
    Path dir;

    @Test
    void aSignalledRaceLabLeavesAWholeRecordingTheSummaryAndNoServer() throws Exception {
        Path home = dir.resolve("home");
        Path file = dir.resolve("cut-short.racelab");
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");
        Child child = Child.jar(Map.of("RACELAB_HOME", home.toString()), "run", "counter", "--workers", "2",
                "--ops", "100000", "--delay", "before-read=20", "--runs", "100", "--record", file.toString());
        try {
            assertTrue(Poll.eventually(Duration.ofSeconds(120), () -> PgProbe.workersOnEmbedded(pidFile) >= 2),
                    "the first run is under way");
            long postgresPid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
            // Its watchman would stop the server too: without it, only RaceLab's own stop can.
            assertTrue(Watchmen.killOf(child, 1), "the RaceLab watches its server");
            child.process().destroy();
            child.await(60);

            try (Backends none = new Backends(BackendSettings.embedded(), dir, StartupListener.SILENT)) {
                Labs labs = new Labs(none);
                Recording recording = new RecordingReader(labs).read(file);
                assertTrue(recording.interrupted(), "the recording says it was cut short");
                assertEquals(1, recording.runs().size(), "no run started after the signal");
                assertTrue(recording.last().outcome().explanation().startsWith("Stopped"),
                        recording.last().outcome().explanation());
            }
            assertTrue(child.out().contains("interrupted by a signal"), child.out());
            assertTrue(child.out().contains("counter · read-modify-write"), child.out());
            try (var listing = Files.list(dir)) {
                assertEquals(List.of(), listing.filter(p -> p.getFileName().toString().endsWith(".part")).toList(),
                        "no partial file is left");
            }
            assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> !alive(postgresPid)), "its PostgreSQL stopped");
            assertFalse(Files.exists(home.resolve("postgres/slot-1")), "and no other was started");
        } finally {
            child.stop();
        }
    }

    private static boolean alive(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        return handle.isPresent() && handle.get().isAlive();
    }
}
