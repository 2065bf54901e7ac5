package dev.racelab.ui;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Service;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.TestServers;
import javafx.scene.control.Spinner;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lab's switch set in the window reaches the next run, its saved recording, and the run made
 * again from that recording, against the real test servers.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class SwitchesAndRecordingsWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    private Map<String, String> switches() {
        return window.session().switchesProperty().get().describe(window.session().lab().switches());
    }

    @Test
    void aSwitchGoesIntoTheNextRunItsRecordingAndTheRunMadeAgainFromIt(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Dining philosophers");
        ui.chooseStrategy("ordered");
        ui.setSpinner("Operations per worker", 3);

        ui.setSwitch("think-ms", "99999");
        Spinner<?> thinking = robot.lookup("#switch-think-ms").queryAs(Spinner.class);
        assertEquals(Map.of("think-ms", "5000"), switches(), "a number out of range is clamped");
        assertEquals("5000", thinking.getEditor().getText());
        assertTrue(thinking.getStyleClass().contains("corrected"), "and the correction is shown");
        ui.setSwitch("think-ms", "lots");
        assertEquals(Map.of("think-ms", "5000"), switches(), "what is not a number is refused");
        assertEquals("5000", thinking.getEditor().getText());

        ui.setSwitch("think-ms", "40");
        assertEquals(Map.of("think-ms", "40"), switches());
        ui.press("run");
        String verdict = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("RACE") || v.startsWith("DEADLOCK")
                || v.startsWith("STUCK") || v.startsWith("ERROR"));
        assertTrue(verdict.startsWith("SAFE"), verdict);
        RunRecord ran = window.session().record();
        Lab lab = window.session().lab();
        assertEquals(Map.of("think-ms", "40"), ran.header().spec().switches().describe(lab.switches()),
                "the run's header carries the switch");

        Path file = dir.resolve("thinking.racelab");
        robot.interact(() -> window.view().recordings().saveTo(file));
        ui.await("the recording is saved", () -> window.view().recordings().savedProperty().get() != null);
        Labs labs = new Labs(TestServers.backends());
        Recording saved = new RecordingReader(labs).read(file);
        assertEquals(ran.header(), saved.last().header());
        assertEquals(ran.outcome().banner(), saved.last().outcome().banner());
        assertEquals(ran.outcome().explanation(), saved.last().outcome().explanation());
        assertEquals(Map.of("redis", TestServers.backends().describe(Service.REDIS)), saved.last().backend(),
                "the recording says which server served the run");

        robot.interact(() -> window.view().recordings().open(file));
        ui.await("the recording is shown", () -> window.session().replayingProperty().get());
        assertEquals(verdict, ui.verdict());
        robot.clickOn("#run-again-button");
        assertFalse(window.session().replayingProperty().get(), "one action runs the settings again, live");
        String again = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("RACE") || v.startsWith("ERROR")
                || v.startsWith("DEADLOCK") || v.startsWith("STUCK"));
        assertTrue(again.startsWith("SAFE"), again);
        RunRecord rerun = window.session().record();
        assertNotEquals(saved.last().header().startedAt(), rerun.header().startedAt(), "a fresh run");
        assertEquals(saved.last().header().spec(), rerun.header().spec());
    }
}
