package dev.racelab.cli;

import dev.racelab.engine.Actor;
import dev.racelab.engine.Clock;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingWriter;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recording made on the command line is made to be looked at: {@code run --record} observes the
 * servers as the window's runs do, so the recording has its server lanes and the lab's server
 * values, and the picture exported from it prints the book's price and tokens. A picture never
 * prints "—" for a value the run knew: a run recorded without observing still knew its final
 * price, from its verdict.
 */
@Tag("lab")
class RecordedServerDataTest {

    @TempDir
    Path dir;

    private static void cli(String... args) {
        CliRun result = CliRun.of(TestServers.childEnvironment(), args);
        assertEquals(0, result.code(), result.err().toString());
    }

    private static Recording read(Path file) throws Exception {
        return new RecordingReader(new Labs(TestServers.backends())).read(file);
    }

    @Test
    void aCommandLineRecordingHasServerLanesAndItsPicturePrintsThePrice() throws Exception {
        Path file = dir.resolve("fencing.racelab");
        cli("run", "fencing", "--workers", "3", "--ops", "3", "--record", file.toString());
        RunRecord run = read(file).last();
        assertTrue(run.header().spec().observe(), "the recorded run observed its server");
        assertTrue(run.events().snapshot().stream().anyMatch(e -> e.kind() == dev.racelab.engine.EventKind.ACTOR
                && e.value() == Actor.Kind.SERVER.ordinal()), "it has server lanes");

        Path svg = dir.resolve("picture.svg");
        cli("export", file.toString(), "--format", "svg", "--picture", "--out", svg.toString());
        String picture = Files.readString(svg);
        long price = run.outcome().metrics().get("finalPrice").longValue();
        long token = run.outcome().metrics().get("finalToken").longValue();
        assertTrue(picture.contains(">price " + price + "<"), "the book's price: " + picture);
        assertTrue(picture.contains(">written with token #" + token + "<"), "its token: " + picture);
        assertFalse(picture.contains("—"), "no value left out: " + picture);
    }

    @Test
    void aRunRecordedWithoutObservingStillPrintsTheFinalValuesItKnew() throws Exception {
        Lab fencing = new Labs(TestServers.backends()).find("fencing").orElseThrow();
        Run run = new Run(fencing, fencing.defaults().withWorkers(2).withOps(2).withObserve(false),
                Clock.system());
        run.start();
        run.awaitOutcome(Duration.ofSeconds(60));
        Path file = dir.resolve("unobserved.racelab");
        try (RecordingWriter writer = RecordingWriter.create(file)) {
            writer.write(fencing, run.record());
            writer.commit(1, 0, false);
        }
        Path svg = dir.resolve("unobserved.svg");
        cli("export", file.toString(), "--format", "svg", "--picture", "--out", svg.toString());
        String picture = Files.readString(svg);
        long price = run.record().outcome().metrics().get("finalPrice").longValue();
        assertTrue(picture.contains(">price " + price + "<"), "the final price, from the verdict: " + picture);
        assertFalse(picture.contains("—"), "no value the run knew left out: " + picture);
    }
}
