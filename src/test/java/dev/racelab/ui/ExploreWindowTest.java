package dev.racelab.ui;

import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.explore.Exploration;
import dev.racelab.engine.explore.Method;
import dev.racelab.ui.explore.ExploreWindow;
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

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The explore window on the counter: every interleaving of two clients runs, a cell each, red
 * where increments were lost; the shrunk failure is one click from the timeline, where it plays
 * passage for passage and loses its increment again, beside the passing schedule nearest to it.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class ExploreWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void everyInterleavingIsACellAndTheShrunkFailurePlaysOnTheTimeline(FxRobot robot) throws Exception {
        WindowDriver driver = new WindowDriver(robot);
        driver.chooseLab("Lost increments");
        ExploreWindow explore = WindowDriver.onFx(() -> window.view().openExplore());
        WindowDriver.onFx(() -> explore.choose(Method.ALL, 2, 2, 1));
        robot.clickOn("#explore-start");
        driver.await("the exploration ends", () -> explore.resultProperty().get() != null);
        Exploration found = explore.resultProperty().get();
        assertEquals(6L, found.space());
        assertEquals(4, found.failingCount());
        List<Node> cells = WindowDriver.onFx(() -> List.copyOf(robot.lookup("#schedule-grid .schedule-cell").queryAll()));
        assertEquals(6, cells.size(), "a cell a schedule");
        long red = WindowDriver.onFx(() -> cells.stream().filter(cell -> cell.getPseudoClassStates().stream()
                .anyMatch(p -> p.getPseudoClassName().equals("failed"))).count());
        assertEquals(4, red, "red where increments were lost");
        String shrunk = WindowDriver.onFx(() -> robot.lookup("#explore-shrunk").queryAs(Label.class).getText());
        assertTrue(shrunk.contains("1 preemption"), shrunk);
        assertTrue(WindowDriver.onFx(() -> robot.lookup(".schedule-passage-differs").queryAll().size()) > 0,
                "where the failure parts from its passing neighbour is marked");

        robot.clickOn("#explore-play-shrunk");
        driver.await("the shrunk failure plays to its end", () -> {
            RunRecord record = window.session().record();
            return record != null && record.ended() && !record.header().spec().schedule().isEmpty();
        });
        RunRecord played = window.session().record();
        assertEquals(Verdict.RACE, played.outcome().verdict(), played.outcome().banner());
        assertNotNull(found.shrunk());
        assertEquals(found.shrunk().found().schedule(), played.header().spec().schedule(),
                "the timeline shows the shrunk schedule, passage for passage");
        WindowDriver.onFx(() -> explore.stage().close());
    }
}
