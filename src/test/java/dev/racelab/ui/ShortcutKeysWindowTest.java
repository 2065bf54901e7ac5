package dev.racelab.ui;

import dev.racelab.engine.Run;
import dev.racelab.ui.shell.LabList;
import dev.racelab.ui.walkthrough.WalkthroughBar;
import javafx.scene.Node;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keys a teacher presses in front of a class do what the window says they do, wherever the
 * focus happens to be (the lab list, a delay in the gates table): F10, the Step key the banner
 * names, steps a worker and opens no menu; a clicker's Page Down and Page Up move the walkthrough,
 * not the lab list; F2 opens the walkthrough.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class ShortcutKeysWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    private Run run() {
        return window.session().run();
    }

    /** Gives the keyboard focus to {@code node}, as a click on it would, without what the click does. */
    private static void focus(FxRobot robot, Node node) throws Exception {
        robot.interact(node::requestFocus);
        new WindowDriver(robot).await("the focus is in " + node.getClass().getSimpleName(), node::isFocused);
    }

    private static LabList labList(FxRobot robot) {
        return robot.lookup("." + LabList.STYLE).queryAs(LabList.class);
    }

    private boolean aMenuIsOpen(FxRobot robot) {
        return robot.lookup(".menu-bar").queryAs(MenuBar.class).getMenus().stream().anyMatch(Menu::isShowing);
    }

    private static void press(FxRobot robot, KeyCode key) {
        robot.press(key).release(key);
    }

    @Test
    void f10StepsAWorkerWhereverTheFocusIsAndOpensNoMenu(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        ui.setSpinner("Number of workers", 2);
        ui.setSpinner("Operations per worker", 1);
        robot.clickOn("Step mode");
        ui.press("run");
        ui.awaitRun("both workers halted at their first gate", run -> run.gates().halted().size() == 2);
        String lab = window.session().lab().id();

        // Looked up each time: a worker halting redraws the gates table's rows.
        List<java.util.concurrent.Callable<Node>> places = List.of(() -> labList(robot),
                () -> ui.delayField("client-1", "after-read"));
        for (java.util.concurrent.Callable<Node> place : places) {
            Node focused = WindowDriver.onFx(place);
            focus(robot, focused);
            long before = WindowDriver.steps(run());
            press(robot, KeyCode.F10);
            ui.awaitRun("F10 with the focus in " + focused.getClass().getSimpleName() + " releases a worker to its "
                    + "next gate", run -> WindowDriver.steps(run) > before);
            WaitForAsyncUtils.waitForFxEvents();
            assertFalse(WindowDriver.onFx(() -> aMenuIsOpen(robot)), "F10 opened a menu");
        }
        assertEquals(lab, window.session().lab().id(), "the lab stays");
    }

    @Test
    void aClickersPageKeysAndF2MoveTheWalkthroughNotTheLabList(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        WalkthroughBar bar = window.view().walkthroughBar();
        focus(robot, labList(robot));
        press(robot, KeyCode.F2);
        ui.await("F2 opens the walkthrough", bar::isOpen);
        assertEquals("Lost increments", WindowDriver.onFx(() -> bar.walkthroughProperty().get().title()));

        focus(robot, labList(robot));
        press(robot, KeyCode.PAGE_DOWN);
        ui.await("Page Down moves to step 2", () -> bar.stepProperty().get() == 1);
        // The step runs the lab; moving on stops the run first.
        focus(robot, ui.delayField("all workers", "before-read"));
        press(robot, KeyCode.PAGE_DOWN);
        ui.await("Page Down moves to step 3", () -> bar.stepProperty().get() == 2);
        focus(robot, labList(robot));
        press(robot, KeyCode.PAGE_UP);
        ui.await("Page Up moves back to step 2", () -> bar.stepProperty().get() == 1);
        assertEquals("counter", WindowDriver.onFx(() -> window.session().lab().id()),
                "the lab list kept its lab under Page Down and Page Up");
    }
    /**
     * In a spinner's editor the arrows move the cursor and Esc is the editor's: with the walkthrough
     * open, they neither move it nor close it (the spinner's editor hands its keys to the spinner).
     */
    @Test
    void theArrowsAndEscInASpinnerAreTheSpinnersNotTheWalkthroughs(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        WalkthroughBar bar = window.view().walkthroughBar();
        press(robot, KeyCode.F2);
        ui.await("F2 opens the walkthrough", bar::isOpen);
        javafx.scene.control.Spinner<?> workers = ui.spinner("Number of workers");
        focus(robot, workers.getEditor());
        press(robot, KeyCode.RIGHT);
        press(robot, KeyCode.LEFT);
        press(robot, KeyCode.ESCAPE);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(WindowDriver.onFx(bar::isOpen), "Esc in the spinner closed the walkthrough");
        assertEquals(0, (int) WindowDriver.onFx(() -> bar.stepProperty().get()), "an arrow in the spinner moved it");
        focus(robot, labList(robot));
        press(robot, KeyCode.RIGHT);
        ui.await("the arrow moves the walkthrough outside a field", () -> bar.stepProperty().get() == 1);
    }
}
