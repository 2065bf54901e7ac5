package dev.racelab.ui;

import com.google.gson.JsonObject;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.timeline.TimelineModel;
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
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease-fencing lab in the window, as a class sees it: the default run races, with Redis's
 * lane and PostgreSQL's lane above the clients, the moments two clients believed they held the
 * lock marked, and the stale writes marked and counted alike in the banner, the panel, the
 * picture and the command line's replay; the fenced run with the same defaults rejects them.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class LeaseFencingWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void theDefaultRunShowsBothServersTheTwoHoldersAndTheStaleWriteAndTheFencedRunRejectsIt(FxRobot robot)
            throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lease lock and fencing");
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        Outcome outcome = window.session().record().outcome();
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        long stale = outcome.violations().get("stale writes applied");
        String staleWrites = stale + (stale == 1 ? " stale write" : " stale writes") + " applied";
        assertEquals("RACE — " + staleWrites, robot.lookup("#verdict").queryAs(Label.class).getText());
        assertEquals(List.of(String.valueOf(stale)), panelValues(ui, "stale writes applied"));
        assertTrue(ui.picture(window).texts().contains("stale writes applied: " + stale));

        TimelineModel timeline = window.view().timeline().model();
        assertEquals(List.of("client-1", "client-2", "Redis lock", "PostgreSQL row"), laneNames(timeline),
                "both servers on one timeline (drawn on top, Redis first), and the clients");
        assertTrue(timeline.count(EventKind.SERVER_HOLDS) >= 2, "Redis's lane named the lock's holders");
        assertTrue(timeline.count(EventKind.SERVER_VALUE) >= 2, "PostgreSQL's lane showed the record");
        long twoHolders = outcome.metrics().get("twoHolders").longValue();
        assertTrue(twoHolders >= 1, outcome.toString());
        assertEquals(twoHolders, timeline.count(EventKind.TWO_HOLDERS), "each moment two believed they held it is marked");
        assertEquals(List.of(String.valueOf(twoHolders)), panelValues(ui, "two holders at once"));
        assertEquals(stale, timeline.violations(), "one ✕ per stale write applied");
        assertEquals(staleWrites, robot.lookup(".verdict-position").queryAs(Label.class).getText());
        assertTrue(timeline.overwriteArrows() >= 1, "an arrow from a stale write back to the newer write it replaced");
        ui.await("the legend names the two-holders mark", () -> robot.lookup("┃ two holders").tryQuery().isPresent());

        JsonObject replay = ui.replay(window, dir.resolve("lease-only.racelab"));
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(stale, replay.getAsJsonObject("violations").get("stale writes applied").getAsLong());
        assertEquals(twoHolders, replay.getAsJsonObject("metrics").get("twoHolders").getAsLong());

        ui.chooseStrategy("fenced");
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        Outcome fenced = window.session().record().outcome();
        assertEquals(Verdict.SAFE, fenced.verdict(), fenced.banner());
        long rejected = fenced.metrics().get("rejectedWrites").longValue();
        assertTrue(rejected >= 1, fenced.toString());
        assertEquals(rejected, window.view().timeline().model().count(EventKind.WRITE_REJECTED), "⊘ on the stale writers' lanes");
        assertEquals(List.of(String.valueOf(rejected), String.valueOf(rejected)),
                List.of(panelValues(ui, "rejected writes").get(0), panelValues(ui, "rejected as stale").get(0)),
                "PostgreSQL's count and the clients' agree");
        assertEquals(List.of("0"), panelValues(ui, "stale writes applied"));
    }

    private static List<String> laneNames(TimelineModel timeline) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < timeline.laneCount(); i++) {
            names.add(timeline.laneName(i));
        }
        names.removeIf(name -> name.equals("run"));
        return names;
    }

    private List<String> panelValues(WindowDriver ui, String label) throws Exception {
        return ui.panels(window).stream().filter(Panel.Values.class::isInstance)
                .flatMap(panel -> ((Panel.Values) panel).rows().stream())
                .filter(row -> row.label().equals(label)).map(Panel.Value::value).toList();
    }
}
