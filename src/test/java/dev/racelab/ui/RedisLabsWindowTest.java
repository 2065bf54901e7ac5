package dev.racelab.ui;

import dev.racelab.ui.look.Palette;
import dev.racelab.ui.model.Settings;
import dev.racelab.engine.Ink;
import dev.racelab.support.TestServers;
import dev.racelab.ui.startup.ServerStartup;
import javafx.scene.canvas.Canvas;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
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
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Redis labs in the real window: the philosophers' table lives, deadlocks are named, the others run. */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class RedisLabsWindowTest {

    @TempDir
    static Path settingsDir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = RaceLabWindow.show(stage, TestServers.backends(),
                new Settings(settingsDir.resolve("settings-" + System.nanoTime() + ".properties")),
                new ServerStartup());
    }

    @Test
    void thePhilosophersTableMovesWhileTheyEatAndShowsTheDeadlockCycle(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Dining philosophers");
        ui.chooseStrategy("waiter");
        ui.setSpinner("Operations per worker", 2000);
        ui.press("run");
        ui.awaitRun("the philosophers ate more than ten meals", run -> run.opsCompleted() > 10);
        int before = Arrays.hashCode(picture(robot));
        ui.await("the picture changes as they eat", () -> Arrays.hashCode(picture(robot)) != before);
        ui.press("stop");
        ui.awaitVerdict(v -> !v.startsWith("Running") && !v.startsWith("Stopping") && !v.startsWith("Ready"));

        ui.chooseStrategy("naive");
        ui.setSpinner("Operations per worker", 10);
        ui.setDelay("all workers", "between-forks", "150");
        ui.press("run");
        String verdict = ui.awaitVerdict(v -> v.startsWith("DEADLOCK") || v.startsWith("SAFE")
                || v.startsWith("STUCK") || v.startsWith("ERROR"));
        assertTrue(verdict.startsWith("DEADLOCK — 5 philosophers in a cycle: philosopher-1 → philosopher-2"), verdict);
        assertTrue(colourCount(robot, Palette.of(Ink.HIGHLIGHT)) > 50, "the cycle is drawn on the table");
        assertTrue(window.view().timeline().model().violations() > 0, "and marked on the timeline");
    }

    @Test
    void theOtherRedisLabsRunInTheWindow(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Readers and writers");
        ui.press("run");
        String readers = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR")
                || v.startsWith("STUCK"));
        assertTrue(readers.matches("RACE — \\d+ starved writes?: .*") || readers.startsWith("SAFE"), readers);

        ui.chooseLab("Redis mutex and semaphore");
        ui.chooseStrategy("hardened-mutex");
        ui.press("run");
        String mutex = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR")
                || v.startsWith("STUCK"));
        assertTrue(mutex.startsWith("SAFE"), mutex);
        assertNotEquals(0, window.view().timeline().model().laneCount());
    }

    /** The lab's picture as pixels. */
    private static int[] picture(FxRobot robot) throws Exception {
        Region box = robot.lookup(".picture").queryAs(Region.class);
        Canvas canvas = (Canvas) box.getChildrenUnmodifiable().get(0);
        WritableImage image = WindowDriver.onFx(() -> canvas.snapshot(null, null));
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        int[] pixels = new int[w * h];
        PixelReader reader = image.getPixelReader();
        reader.getPixels(0, 0, w, h, javafx.scene.image.PixelFormat.getIntArgbInstance(), pixels, 0, w);
        return pixels;
    }

    private static long colourCount(FxRobot robot, Color colour) throws Exception {
        int target = (int) Math.round(colour.getRed() * 255) << 16 | (int) Math.round(colour.getGreen() * 255) << 8
                | (int) Math.round(colour.getBlue() * 255);
        long count = 0;
        for (int p : picture(robot)) {
            int rgb = p & 0xffffff;
            if (Math.abs((rgb >> 16) - (target >> 16)) < 24 && Math.abs((rgb >> 8 & 0xff) - (target >> 8 & 0xff)) < 24
                    && Math.abs((rgb & 0xff) - (target & 0xff)) < 24) {
                count++;
            }
        }
        return count;
    }
}
