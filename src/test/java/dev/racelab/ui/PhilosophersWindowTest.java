package dev.racelab.ui;

import com.google.gson.JsonObject;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.view.Panel;
import dev.racelab.support.RecordingSketch;
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
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dining philosophers' default run in the window, as a class first sees it: the table
 * deadlocks, and the banner, the panels, the picture, the violation navigator and the command
 * line's summary of the same recording agree on the deadlock (five philosophers in a cycle) and on
 * the hungriest philosopher and how long it has waited.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class PhilosophersWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void theDefaultRunDeadlocksAndEveryPlaceShowsTheSameCycleAndHunger(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Dining philosophers");
        ui.press("run");
        String verdict = ui.awaitVerdict(v -> v.startsWith("DEADLOCK") || v.startsWith("SAFE")
                || v.startsWith("STUCK") || v.startsWith("ERROR"));
        Outcome outcome = window.session().record().outcome();
        String cycle = "5 philosophers in a cycle";
        String headline = cycle + ": philosopher-1 → philosopher-2 → philosopher-3 → philosopher-4 → philosopher-5 "
                + "→ philosopher-1";
        long hungerMs = outcome.metrics().get("longestHungerMs").longValue();
        String hungriest = "philosopher-" + outcome.metrics().get("hungriestPhilosopher");
        assertTrue(hungerMs >= 1000, "they starve for over a second before the deadlock is named: " + hungerMs);

        // The banner.
        assertEquals("DEADLOCK — " + headline, verdict);
        assertTrue(outcome.explanation().contains(hungriest + " was hungry longest: " + hungerMs + " ms, and still is."),
                outcome.explanation());

        // The panels.
        List<Panel> panels = ui.panels(window);
        Panel.Items deadlock = (Panel.Items) panel(panels, "Deadlock");
        assertEquals(headline, deadlock.items().get(0).text());
        Panel.Items hunger = (Panel.Items) panel(panels, "Hungriest");
        assertEquals(hungriest + ", " + hungerMs + " ms (still hungry)", hunger.items().get(0).text());

        // The picture.
        RecordingSketch picture = ui.picture(window);
        assertEquals(5, picture.arrows(), "an arrow per philosopher of the cycle");
        assertTrue(picture.texts().contains("deadlock: " + cycle), picture.texts().toString());
        String shortName = "P" + outcome.metrics().get("hungriestPhilosopher");
        assertTrue(picture.texts().contains("hungriest: " + shortName + ", " + hungerMs + " ms (still hungry)"),
                picture.texts().toString());

        // The violation navigator: one mark per deadlocked philosopher.
        assertEquals(Map.of("deadlocked philosophers", 5L), outcome.violations());
        assertEquals(5, window.view().timeline().model().violations());
        String walk = robot.lookup(".verdict-position").queryAs(Label.class).getText();
        assertTrue(walk.startsWith("5 "), walk);

        // The command line's summary of the same recording.
        JsonObject replay = ui.replay(window, dir.resolve("deadlock.racelab"));
        assertEquals("DEADLOCK", replay.get("verdict").getAsString());
        assertEquals(headline, replay.get("headline").getAsString());
        assertEquals(5, replay.getAsJsonObject("violations").get("deadlocked philosophers").getAsLong());
        assertEquals(hungerMs, replay.getAsJsonObject("metrics").get("longestHungerMs").getAsLong());
        assertEquals(hungriest, "philosopher-" + replay.getAsJsonObject("metrics").get("hungriestPhilosopher").getAsLong());
    }

    private static Panel panel(List<Panel> panels, String title) {
        return panels.stream().filter(p -> p.title().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no panel " + title + " in " + panels));
    }
}
