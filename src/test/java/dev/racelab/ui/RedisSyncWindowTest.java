package dev.racelab.ui;

import com.google.gson.JsonObject;
import dev.racelab.engine.Outcome;
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
import org.testfx.util.WaitForAsyncUtils;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code redis-primitives} and {@code readers-writers} run with their defaults in the window, as a
 * class first sees them: the banner, the panels, the violation navigator and the command line's
 * summary of the same recording tell one story with one figure.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class RedisSyncWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void theArticlesMutexIsLostWithItsCrashedHolderAndEveryPlaceSaysSo(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Redis mutex and semaphore");
        ui.press("run");
        String verdict = ui.awaitVerdict(RedisSyncWindowTest::ended);
        Outcome outcome = window.session().record().outcome();

        // The banner: the preset crash loses the mutex, the other three wait for ever.
        assertEquals("STUCK — 1 permit lost — 3 workers wait for ever", verdict);
        assertTrue(outcome.explanation().contains("client-2 crashed holding the mutex: nothing in Redis says who holds it"),
                outcome.explanation());

        // The panel: who the workers believe holds it, and what Redis records.
        Panel.Items mutex = (Panel.Items) panel(panels(), "The mutex, as the workers know it");
        List<String> items = mutex.items().stream().map(Panel.Item::text).toList();
        assertEquals("held by client-2, which crashed", items.get(0), items.toString());
        assertEquals("Redis records no holder: nobody can take it back", items.get(1));
        assertEquals(2 + 3, items.size(), "and the three who wait: " + items);

        // The violation navigator: the one lost permit is marked where it was lost.
        assertEquals(Map.of("lost permits", 1L, "stuck waiters", 3L), outcome.violations());
        assertEquals(1, window.view().timeline().model().violations());

        // The command line's summary of the same recording.
        JsonObject replay = new WindowDriver(robot).replay(window, dir.resolve("mutex.racelab"));
        assertEquals("STUCK", replay.get("verdict").getAsString());
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(1, replay.getAsJsonObject("metrics").get("lostPermits").getAsLong());
        assertEquals(3, replay.getAsJsonObject("violations").get("stuck waiters").getAsLong());
    }

    @Test
    void readerPreferenceStarvesAWriterAndEveryPlaceCountsTheSameStarvedWrites(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Readers and writers");
        ui.press("run");
        String verdict = ui.awaitVerdict(RedisSyncWindowTest::ended);
        Outcome outcome = window.session().record().outcome();
        long starved = outcome.metrics().get("starvedWrites").longValue();
        assertTrue(starved > 0, verdict);

        // The banner counts starved writes, the figure every other place shows.
        assertTrue(verdict.startsWith("RACE — " + starved + " starved write"), verdict);
        // The violation navigator: one mark per starved write.
        assertEquals(Map.of("starved writes", starved), outcome.violations());
        assertEquals(starved, window.view().timeline().model().violations());
        String walk = robot.lookup(".verdict-position").queryAs(Label.class).getText();
        assertTrue(walk.startsWith(starved + " "), walk);

        // The command line's summary of the same recording.
        JsonObject replay = new WindowDriver(robot).replay(window, dir.resolve("readers.racelab"));
        assertEquals("RACE", replay.get("verdict").getAsString());
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(starved, replay.getAsJsonObject("metrics").get("starvedWrites").getAsLong());
        assertEquals(starved, replay.getAsJsonObject("violations").get("starved writes").getAsLong());
    }

    private static boolean ended(String verdict) {
        return verdict.startsWith("RACE") || verdict.startsWith("SAFE") || verdict.startsWith("STUCK")
                || verdict.startsWith("ERROR") || verdict.startsWith("DEADLOCK");
    }

    private List<Panel> panels() throws Exception {
        return WindowDriver.onFx(() -> {
            window.view().stateColumn().refreshNow();
            return window.view().stateColumn().shownPanels();
        });
    }

    private static Panel panel(List<Panel> panels, String title) {
        return panels.stream().filter(p -> p.title().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no panel " + title + " in " + panels));
    }
}
