package dev.racelab.ui;

import dev.racelab.engine.Batch;
import dev.racelab.engine.Verdict;
import dev.racelab.ui.batch.BatchWindow;
import javafx.scene.control.CheckBox;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Batch outcomes in the window: the counter's settings run many times, the broken strategy beside
 * its fixes; the broken one fails in every run with the lab's preset pauses, the fixes in none; a
 * sweep of the delay after the read gives a point per delay and strategy; the chart exports.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class BatchWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    private BatchWindow open(FxRobot robot, String... strategies) throws Exception {
        new WindowDriver(robot).chooseLab("Lost increments");
        BatchWindow batch = WindowDriver.onFx(() -> window.view().openBatch());
        WindowDriver.onFx(() -> robot.lookup(".check-box").queryAllAs(CheckBox.class).stream()
                .filter(box -> box.getId() != null && box.getId().startsWith("batch-strategy-"))
                .peek(box -> box.setSelected(List.of(strategies).contains(box.getId().substring(15)))).count());
        return batch;
    }

    private static Batch.Result await(FxRobot robot, BatchWindow batch) throws Exception {
        new WindowDriver(robot).await("the batch ends", () -> batch.resultProperty().get() != null);
        return batch.resultProperty().get();
    }

    @Test
    void theBrokenStrategyFailsInEveryRunAndTheFixInNone(FxRobot robot) throws Exception {
        BatchWindow batch = open(robot, "read-modify-write", "atomic-update");
        robot.clickOn("#batch-start");
        Batch.Result result = await(robot, batch);

        assertEquals(40, result.runs(), "20 runs of each strategy");
        Batch.Point broken = result.points().get("read-modify-write").get(0);
        Batch.Point fixed = result.points().get("atomic-update").get(0);
        assertEquals(20, broken.failed(), broken.verdicts().toString());
        assertEquals(20, fixed.verdicts().get(Verdict.SAFE), fixed.verdicts().toString());
        assertTrue(broken.figures().stream().allMatch(lost -> lost > 0), "every broken run lost increments: "
                + broken.figures());

        Path csv = dir.resolve("batch.csv");
        WindowDriver.onFx(() -> batch.exportTo("csv", csv));
        List<String> lines = Files.readAllLines(csv);
        assertEquals(3, lines.size(), "a header and a line per strategy: " + lines);
        assertTrue(lines.get(1).startsWith("read-modify-write,,20,20,"), lines.get(1));
        Path png = dir.resolve("batch.png");
        WindowDriver.onFx(() -> batch.exportTo("png", png));
        assertTrue(javax.imageio.ImageIO.read(png.toFile()).getWidth() > 0);
        WindowDriver.onFx(() -> batch.stage().close());
    }

    @Test
    void aSweepGivesAPointPerDelayAndStrategy(FxRobot robot) throws Exception {
        BatchWindow batch = open(robot, "read-modify-write", "select-for-update");
        robot.clickOn("Sweep the delay at");
        robot.doubleClickOn(robot.from(batch.stage().getScene().getRoot()).lookup(".number-spinner .text-field")
                .queryAs(javafx.scene.Node.class)).write("2").push(javafx.scene.input.KeyCode.TAB);
        WindowDriver.onFx(() -> batch.start());
        Batch.Result result = await(robot, batch);
        assertEquals(5 * 2 * 2, result.runs(), "2 runs at each of 5 delays, of each of 2 strategies");

        for (String strategy : List.of("read-modify-write", "select-for-update")) {
            List<Long> delays = result.points().get(strategy).stream().map(Batch.Point::delay).toList();
            assertEquals(List.of(0L, 5L, 10L, 15L, 20L), delays, strategy);
        }
        assertTrue(result.points().get("select-for-update").stream().allMatch(p -> p.failed() == 0),
                "the fix never fails");
        Path svg = dir.resolve("sweep.svg");
        WindowDriver.onFx(() -> batch.exportTo("svg", svg));
        assertTrue(Files.readString(svg).contains(">delay, ms</text>"), "the sweep's axis");
        WindowDriver.onFx(() -> batch.stage().close());
    }
}
