package dev.racelab.ui;

import com.google.gson.JsonObject;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.Panel;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job queue's default run in the window, as a class first sees it: select-then-update sends
 * jobs twice, and the banner, the panel, the strip of jobs (its ×N cells), the ✕ marks and the
 * command line's summary of the saved recording all count the same duplicate emails.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class JobQueueWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void theDefaultSendsJobsTwiceAndEveryPlaceCountsTheSameDuplicates(FxRobot robot)
            throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Job queue");
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        Outcome outcome = window.session().record().outcome();
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        long duplicates = outcome.violations().get("duplicate emails");
        long twice = outcome.metrics().get("jobsSentTwice").longValue();

        assertEquals("RACE — " + duplicates + " duplicate emails: " + twice + " jobs sent more than once",
                robot.lookup("#verdict").queryAs(Label.class).getText());
        assertEquals(List.of(String.valueOf(duplicates)), panelValues(ui, "duplicate emails"));
        assertEquals(List.of(String.valueOf(twice)), panelValues(ui, "sent more than once"));
        assertEquals(List.of(String.valueOf(outcome.metrics().get("jobsPerSec"))), panelValues(ui, "jobs/s"));
        List<String> texts = ui.picture(window).texts();
        assertTrue(texts.contains("duplicate emails: " + duplicates), texts.toString());
        // The strip: a cell "×N" for each job sent N times; together they are the duplicates.
        List<String> cells = texts.stream().filter(t -> t.matches("×[0-9]+")).toList();
        assertEquals(twice, cells.size(), texts.toString());
        assertEquals(duplicates, cells.stream().mapToLong(t -> Long.parseLong(t.substring(1)) - 1).sum());
        assertEquals(32 - twice, texts.stream().filter("✓"::equals).count(), "the others went out once");

        // One ✕ per duplicate email, named so, with arrows back to each job's first email.
        assertEquals(duplicates, window.view().timeline().model().violations());
        assertEquals(duplicates + " duplicate emails", robot.lookup(".verdict-position").queryAs(Label.class).getText());
        assertTrue(window.view().timeline().model().overwriteArrows() >= 1, "a duplicate leads back to the first");

        JsonObject replay = ui.replay(window, dir.resolve("job-queue.racelab"));
        assertEquals("RACE", replay.get("verdict").getAsString());
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(duplicates, replay.getAsJsonObject("violations").get("duplicate emails").getAsLong());
    }

    private List<String> panelValues(WindowDriver ui, String label) throws Exception {
        return ui.panels(window).stream().filter(Panel.Values.class::isInstance)
                .flatMap(panel -> ((Panel.Values) panel).rows().stream())
                .filter(row -> row.label().equals(label)).map(Panel.Value::value).toList();
    }
}
