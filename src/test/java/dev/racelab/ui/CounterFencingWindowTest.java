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
 * The counter and fencing labs' default runs in the window, as a class first sees them: each
 * races, and the banner, the side panel, the picture, the violation navigator and the command
 * line's summary of the same recording show the same key figure — increments lost, stale writes
 * applied. Where the ✕ marks count something else (counter: overwriting writes), they say so by
 * name and agree with the oracle's count of them.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class CounterFencingWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;
    private FxRobot robot;
    private WindowDriver ui;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void theCounterDefaultLosesIncrementsAndEveryPlaceShowsTheSameNumber(FxRobot robot) throws Exception {
        Outcome outcome = runDefault(robot, "Lost increments");
        long lost = outcome.violations().get("lost increments");
        long overwrites = outcome.metrics().get("overwritingWrites").longValue();
        assertTrue(lost > 0 && overwrites > 0, outcome.toString());
        String lostWords = lost + (lost == 1 ? " increment lost" : " increments lost");

        assertEquals("RACE — " + lostWords, banner());
        assertEquals(List.of(String.valueOf(lost)), panelValues("increments lost"));
        List<String> texts = ui.picture(window).texts();
        assertTrue(texts.contains("lost"), texts.toString());
        assertEquals(String.valueOf(lost), texts.get(texts.indexOf("lost") + 1), "the picture's lost column");

        // The ✕ marks are the overwriting writes, named so, and the tooltip points at the verdict's figure.
        assertEquals(overwrites, window.view().timeline().model().violations());
        Label walk = robot.lookup(".verdict-position").queryAs(Label.class);
        assertEquals(overwrites + (overwrites == 1 ? " overwriting write" : " overwriting writes"), walk.getText());
        assertTrue(walk.getTooltip().getText().contains(lostWords), walk.getTooltip().getText());
        ui.await("the legend names the marks", () -> robot.lookup("✕ overwriting writes").tryQuery().isPresent());
        // And arrows lead from the overwriting writes back to the writes they never saw.
        assertTrue(window.view().timeline().model().overwriteArrows() >= 1, "the lost updates can be followed by eye");

        JsonObject replay = ui.replay(window, dir.resolve("counter.racelab"));
        assertEquals("RACE", replay.get("verdict").getAsString());
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(lost, replay.getAsJsonObject("violations").get("lost increments").getAsLong());
        assertEquals(overwrites, replay.getAsJsonObject("metrics").get("overwritingWrites").getAsLong());
    }

    @Test
    void theFencingDefaultAppliesStaleWritesAndEveryPlaceShowsTheSameNumber(FxRobot robot) throws Exception {
        Outcome outcome = runDefault(robot, "Fencing tokens");
        long stale = outcome.violations().get("stale writes applied");
        assertTrue(stale > 0, outcome.toString());
        String staleWrites = stale + (stale == 1 ? " stale write" : " stale writes");

        assertTrue(banner().startsWith("RACE — " + staleWrites + " applied"), banner());
        assertEquals(List.of(String.valueOf(stale)), panelValues("stale writes applied"));
        List<String> texts = ui.picture(window).texts();
        assertTrue(texts.contains("stale writes applied: " + stale), texts.toString());

        // Here each ✕ is one stale write applied: the marks and the figure are one count.
        assertEquals(stale, window.view().timeline().model().violations());
        Label walk = robot.lookup(".verdict-position").queryAs(Label.class);
        assertEquals(staleWrites + " applied", walk.getText());
        // And an arrow leads from each stale write back to the newer price it replaced.
        assertTrue(window.view().timeline().model().overwriteArrows() >= 1, "the stale writes can be followed by eye");

        JsonObject replay = ui.replay(window, dir.resolve("fencing.racelab"));
        assertEquals("RACE", replay.get("verdict").getAsString());
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(stale, replay.getAsJsonObject("violations").get("stale writes applied").getAsLong());
        assertEquals(stale, replay.getAsJsonObject("metrics").get("staleWritesApplied").getAsLong());
        assertEquals(outcome.metrics().get("finalPrice").longValue(),
                replay.getAsJsonObject("metrics").get("finalPrice").getAsLong());
    }

    /** Chooses the lab and presses Run with every default; the race it ends in. */
    private Outcome runDefault(FxRobot robot, String lab) throws Exception {
        this.robot = robot;
        ui = new WindowDriver(robot);
        ui.chooseLab(lab);
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        Outcome outcome = window.session().record().outcome();
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        return outcome;
    }

    private String banner() {
        return robot.lookup("#verdict").queryAs(Label.class).getText();
    }

    private List<String> panelValues(String label) throws Exception {
        return ui.panels(window).stream().filter(Panel.Values.class::isInstance)
                .flatMap(panel -> ((Panel.Values) panel).rows().stream())
                .filter(row -> row.label().equals(label)).map(Panel.Value::value).toList();
    }
}
