package dev.racelab.ui;

import com.google.gson.JsonObject;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.Panel;
import dev.racelab.support.TestServers;
import dev.racelab.ui.model.Settings;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.controlsfx.control.StatusBar;
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
 * replica-read in the window, on RaceLab's own primary and standby: the default run races, and
 * the stale reads are counted alike in the banner, the panel, the ✕ marks and the command line's
 * replay of the same run; the panel's longest stale read is the verdict's figure; the status bar
 * names the pair the run used, not only the shared servers.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class ReplicaReadWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        // The pair is RaceLab's own whatever servers the suite shares: the window's backends say so.
        window = RaceLabWindow.show(stage, TestServers.topologies(),
                new Settings(dir.resolve("settings-" + System.nanoTime() + ".properties")),
                new dev.racelab.ui.startup.ServerStartup());
    }

    @Test
    void theDefaultRunsStaleReadsAgreeEverywhereAndTheStatusBarNamesTheStandby(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Reading from a standby");
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        Outcome outcome = window.session().record().outcome();
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        long stale = outcome.metrics().get("staleReads").longValue();
        assertTrue(stale >= 10, "client-1's ten reads met a paused replay: " + outcome.banner());
        assertEquals("RACE — " + stale + " of 20 reads stale: a client did not see its own write",
                robot.lookup("#verdict").queryAs(Label.class).getText());
        assertEquals(List.of(String.valueOf(stale)), panelValues(ui, "stale reads"));
        assertEquals(List.of("20"), panelValues(ui, "reads"));
        assertEquals(stale, window.view().timeline().model().violations(), "one ✕ per stale read");
        String longest = panelValues(ui, "longest stale").get(0);
        assertTrue(outcome.explanation().contains("was " + longest + ";"),
                "the panel's longest stale read (" + longest + ") is the verdict's: " + outcome.explanation());

        ui.await("the status bar names the standby", () -> robot.lookup(".status-bar").queryAs(StatusBar.class)
                .getText().contains("standby"));

        JsonObject replay = ui.replay(window, dir.resolve("replica-read.racelab"));
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(stale, replay.getAsJsonObject("metrics").get("staleReads").getAsLong());
    }

    private List<String> panelValues(WindowDriver ui, String label) throws Exception {
        return ui.panels(window).stream().filter(Panel.Values.class::isInstance)
                .flatMap(panel -> ((Panel.Values) panel).rows().stream())
                .filter(row -> row.label().equals(label)).map(Panel.Value::value).toList();
    }
}
