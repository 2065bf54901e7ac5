package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Run;
import dev.racelab.support.TestServers;
import dev.racelab.ui.startup.ServerStartup;
import javafx.scene.image.Image;
import javafx.scene.input.KeyCode;
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
 * The real window, headless (Monocle), driven as a user would against the real test servers:
 * provoke the race with a delay, watch the verdict, switch on the fix; build the interleaving by
 * hand in step mode.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class WindowTest {

    @TempDir
    static Path settingsDir;

    private RaceLabWindow window;
    private WindowDriver ui;

    @Start
    void start(Stage stage) {
        window = RaceLabWindow.show(stage, TestServers.backends(),
                new Settings(settingsDir.resolve("settings-" + System.nanoTime() + ".properties")),
                new ServerStartup());
    }

    private Run run() {
        return window.session().run();
    }

    @Test
    void theWindowWearsRaceLabsIconInTheSizesWindowManagersPickFrom() {
        Stage stage = (Stage) window.view().getScene().getWindow();
        assertEquals(List.of(16.0, 32.0, 48.0, 64.0, 128.0, 256.0),
                stage.getIcons().stream().map(Image::getWidth).toList(), "every icon loaded, at its size");
        assertTrue(stage.getIcons().stream().noneMatch(Image::isError));
    }

    @Test
    void aDelayAfterTheReadLosesIncrementsAndTheAtomicUpdateFixesIt(FxRobot robot) throws Exception {
        ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        ui.setDelay("all workers", "after-read", "5");
        ui.press("run");
        String race = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        assertTrue(race.matches("RACE — \\d+ increments? lost"), race);
        assertTrue(window.view().timeline().model().violations() > 0, "the lost increments are on the timeline");

        ui.chooseStrategy("atomic-update");
        ui.press("run");
        String safe = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("ERROR")
                || v.startsWith("RACE") && run().strategy().id().equals("atomic-update"));
        assertEquals("SAFE — all 20 increments counted", safe);
    }

    @Test
    void steppingTwoWorkersByHandLosesExactlyOneIncrement(FxRobot robot) throws Exception {
        ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        ui.setSpinner("Number of workers", 2);
        ui.setSpinner("Operations per worker", 1);
        robot.clickOn("Step mode");
        ui.press("run");
        try {
            ui.awaitRun("both workers halt at their first gate", run -> run.gates().halted().size() == 2);
        } catch (Exception e) {
            ui.snapshot("step-mode");
            throw e;
        }
        // The banner follows the record a frame behind the run: on a busy machine, more than one.
        assertEquals("Paused — step mode", ui.awaitVerdict(v -> v.startsWith("Paused")));

        // So does the gates table's halted mark (the name marked ‖, the cell of the gate outlined).
        ui.await("the gates table marks client-1 halted", () -> robot.lookup("client-1 ‖").tryQuery().isPresent());
        robot.clickOn("client-1 ‖");
        ui.press("step");
        ui.await("client-1 halts after its read", () -> gate(0).equals("after-read"));
        robot.press(KeyCode.ALT, KeyCode.DIGIT2).release(KeyCode.DIGIT2, KeyCode.ALT);
        ui.await("client-2 halts after its read", () -> gate(1).equals("after-read"));
        robot.press(KeyCode.ALT, KeyCode.DIGIT1).release(KeyCode.DIGIT1, KeyCode.ALT);
        ui.await("client-1 writes and finishes", () -> run().gates().haltedAt(0) == null);
        robot.press(KeyCode.ALT, KeyCode.DIGIT2).release(KeyCode.DIGIT2, KeyCode.ALT);

        assertEquals("RACE — 1 increment lost", ui.awaitVerdict(v -> !v.startsWith("Paused") && !v.startsWith("Run")));
    }

    private String gate(int worker) {
        var gate = run().gates().haltedAt(worker);
        return gate == null ? "" : gate.id();
    }

    @Test
    void checkThenWriteRacesAndFencedCompareAndSetRejectsOnTheTimeline(FxRobot robot) throws Exception {
        ui = new WindowDriver(robot);
        ui.chooseLab("Fencing tokens");
        ui.chooseStrategy("check-then-write");
        ui.setSpinner("Operations per worker", 20);
        ui.setDelay("all workers", "after-check", "0-20");
        ui.press("run");
        String race = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        assertTrue(race.startsWith("RACE"), race);

        ui.chooseStrategy("fenced-cas");
        ui.press("run");
        String safe = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("ERROR")
                || v.startsWith("RACE") && run().strategy().id().equals("fenced-cas"));
        assertTrue(safe.startsWith("SAFE — final price"), safe);
        assertTrue(window.view().timeline().model().count(EventKind.WRITE_REJECTED) > 0,
                "rejected writes are marked on the timeline");
    }
}
