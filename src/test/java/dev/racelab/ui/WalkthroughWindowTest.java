package dev.racelab.ui;

import dev.racelab.engine.Batch;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.Panel;
import dev.racelab.ui.batch.BatchWindow;
import dev.racelab.ui.walkthrough.WalkthroughBar;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A walkthrough drives the window: from the first screen one click opens the lab's own; a file a
 * teacher wrote takes the window through every step with a clicker's keys — settings, runs, a batch,
 * what to look at — and a broken one is refused naming its line, leaving the window as it was.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class WalkthroughWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    private WalkthroughBar bar() {
        return window.view().walkthroughBar();
    }

    @Test
    void oneClickOnTheFirstScreenOpensTheLabsWalkthrough(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        robot.clickOn("#walkthrough-button");
        ui.await("the walkthrough opens", () -> bar().isOpen());
        assertEquals(0, bar().stepProperty().get());
        assertEquals("Lost increments", bar().walkthroughProperty().get().title());
        assertEquals("read-modify-write", window.session().strategyProperty().get().id());
        assertEquals("before-read=0-100 after-read=10-30",
                window.session().gatesProperty().get().describe(i -> "client-" + (i + 1)));
        assertTrue(robot.lookup(".pointed").tryQuery().isPresent(), "the step points at the gates");
        robot.press(javafx.scene.input.KeyCode.ESCAPE).release(javafx.scene.input.KeyCode.ESCAPE);
        ui.await("Esc closes the walkthrough", () -> !bar().isOpen());
        assertTrue(robot.lookup(".pointed").tryQuery().isEmpty(), "closing lets go of what it pointed at");
    }

    @Test
    void aTeachersFileTakesTheWindowThroughEveryStepWithTheClickersKeys(FxRobot robot) throws Exception {
        Path lesson = dir.resolve("lesson.walkthrough");
        Files.writeString(lesson, """
                walkthrough: My lesson
                lab: counter
                step: Set it up
                  say: Two clients, a pause after the read.
                  strategy: read-modify-write
                  workers: 2
                  ops: 3
                  gates: after-read=20
                  point: gates
                step: Run it
                  say: They read the same value.
                  run
                  point: marks
                  point: panel Counter row
                step: The fix
                  say: One statement.
                  strategy: atomic-update
                  run
                  point: last-runs
                step: Twenty runs each
                  say: Every time, and never.
                  batch: 5 read-modify-write atomic-update
                """);
        WindowDriver ui = new WindowDriver(robot);
        WindowDriver.onFx(() -> window.view().openWalkthrough(lesson));
        ui.await("the walkthrough opens", () -> bar().isOpen());
        assertEquals(2, window.session().workersProperty().get());

        robot.press(javafx.scene.input.KeyCode.PAGE_DOWN).release(javafx.scene.input.KeyCode.PAGE_DOWN);
        ui.await("step 2 runs to its verdict", () -> bar().stepProperty().get() == 1 && window.session().outcomeProperty().get() != null);
        assertEquals(Verdict.RACE, window.session().outcomeProperty().get().verdict(), "two clients, 20 ms apart");
        ui.await("the step points at a panel", () -> robot.lookup(".panel.pointed").tryQuery().isPresent());
        assertTrue(robot.lookup(".panel.pointed .panel-title").queryAs(Label.class).getText().startsWith("Counter row"));

        robot.press(javafx.scene.input.KeyCode.RIGHT).release(javafx.scene.input.KeyCode.RIGHT);
        ui.await("step 3 runs the fix to its verdict", () -> bar().stepProperty().get() == 2 && window.session().outcomeProperty().get() != null
                && "atomic-update".equals(window.session().record().header().spec().strategy()));
        assertEquals(Verdict.SAFE, window.session().outcomeProperty().get().verdict());

        robot.press(javafx.scene.input.KeyCode.PAGE_DOWN).release(javafx.scene.input.KeyCode.PAGE_DOWN);
        ui.await("step 4 opens the batch", () -> window.view().batchWindow() != null);
        BatchWindow batch = window.view().batchWindow();
        ui.await("the batch ends", () -> batch.resultProperty().get() != null);
        Batch.Result result = batch.resultProperty().get();
        assertEquals(5, result.points().get("read-modify-write").get(0).failed());
        assertEquals(0, result.points().get("atomic-update").get(0).failed());
        WindowDriver.onFx(() -> batch.stage().close());

        robot.press(javafx.scene.input.KeyCode.PAGE_UP).release(javafx.scene.input.KeyCode.PAGE_UP);
        ui.await("Page Up goes back to step 3", () -> bar().stepProperty().get() == 2);
    }

    /**
     * The counter's own lesson: step 2 runs the race, step 3 explains it ("Where the increments
     * went": the marks, the counter row's panel) and has no run of its own, so the run just made
     * stays: its verdict on the banner, its marks on the timeline (the first one shown), its panel.
     */
    @Test
    void aStepThatExplainsTheRunJustMadeKeepsItOnScreen(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        robot.interact(() -> window.view().openWalkthrough("counter"));
        ui.await("the counter's walkthrough opens", () -> bar().isOpen());
        robot.interact(() -> bar().move(1));
        ui.await("step 2's run ends", () -> bar().stepProperty().get() == 1
                && window.session().outcomeProperty().get() != null);
        String verdict = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        assertTrue(verdict.startsWith("RACE"), "four clients, a pause after the read: " + verdict);
        var record = window.session().record();
        long marks = WindowDriver.onFx(() -> (long) window.view().timeline().model().violations());
        assertTrue(marks > 0, "the lost increments are on the timeline");

        robot.interact(() -> bar().move(1));
        ui.await("step 3 is shown", () -> bar().stepProperty().get() == 2);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(verdict, ui.verdict(), "the banner still says what the run found");
        assertSame(record, window.session().record(), "the run shown is the one step 2 made");
        assertEquals(marks, (long) WindowDriver.onFx(() -> window.view().timeline().model().violations()),
                "its marks are still on the timeline");
        String position = robot.lookup(".verdict-position").queryAs(Label.class).getText();
        assertTrue(position.endsWith(" 1 of " + marks), "the step shows the first mark: " + position);
        Panel.Values row = (Panel.Values) ui.panels(window).stream().filter(p -> p.title().startsWith("Counter row"))
                .findFirst().orElseThrow();
        assertTrue(row.rows().stream().anyMatch(v -> v.label().equals("increments committed") && !v.value().equals("0")),
                "the counter row's panel still reads what the run left: " + row.rows());
    }

    @Test
    void aBrokenFileIsRefusedNamingItsLineAndNothingChanges(FxRobot robot) throws Exception {
        Path broken = dir.resolve("broken.walkthrough");
        Files.writeString(broken, "walkthrough: Broken\nlab: counter\nstep: S\n  say: x\n  strategy: fastest\n");
        WindowDriver ui = new WindowDriver(robot);
        String before = WindowDriver.onFx(() -> window.session().strategyProperty().get().id());
        WindowDriver.onFx(() -> window.view().openWalkthrough(broken));
        ui.await("the walkthrough's problem is shown", () -> robot.lookup("#walkthrough-problem").tryQuery().isPresent());
        Node problem = robot.lookup("#walkthrough-problem").query();
        String text = ((javafx.scene.control.DialogPane) problem).getContentText();
        assertTrue(text.contains("broken.walkthrough, line 5: lab counter has no strategy 'fastest'"), text);
        assertTrue(!bar().isOpen());
        assertEquals(before, window.session().strategyProperty().get().id());
        robot.clickOn("OK");
    }
}
