package dev.racelab.ui;

import javafx.scene.control.Button;
import javafx.scene.control.ToggleButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Broken and fixed side by side in time: after a broken run and a fixed one, the broken run is one
 * click away, shown as it ended (verdict, timeline), without running it again.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class LastRunsWindowTest {

    @TempDir
    static Path settingsDir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, settingsDir);
    }

    @Test
    void theBrokenRunStaysOneClickAwayAfterTheFixRan(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        ui.setSpinner("Operations per worker", 20);
        ui.setDelay("all workers", "after-read", "5");
        ui.press("run");
        String race = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        assertTrue(race.startsWith("RACE"), race);
        int violations = window.view().timeline().model().violations();

        ui.chooseStrategy("atomic-update");
        ui.press("run");
        String safe = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("ERROR")
                || v.startsWith("RACE") && window.session().run().strategy().id().equals("atomic-update"));
        assertTrue(safe.startsWith("SAFE"), safe);

        Button broken = robot.lookup("#last-run-read-modify-write").queryAs(Button.class);
        assertTrue(broken.getText().endsWith(race), broken.getText());
        robot.clickOn(broken);
        ui.await("the banner shows the broken run again", () -> ui.verdict().equals(race));
        assertEquals(violations, window.view().timeline().model().violations(), "the broken run's marks are back");
        assertTrue(robot.lookup("#strategy-read-modify-write").queryAs(ToggleButton.class).isSelected());
        assertTrue(window.session().replayingProperty().get(), "shown as it ended, nothing ran again");
        assertTrue(robot.lookup("#last-run-atomic-update").queryAs(Button.class).getText().endsWith(safe));
    }
}
