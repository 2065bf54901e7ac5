package dev.racelab.ui;

import com.google.gson.JsonObject;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.timeline.Lane;
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
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The advisory-lock lab in the window, as a class sees it: the default run leaves the lock in a
 * pool connection no worker owns, and the banner, the panels, the picture, PostgreSQL's server lane
 * (in the race's colour) and the command line's replay of the saved recording all name the same
 * connection and key and count the same locks left behind; then one worker takes its lock three
 * times, unlocks it three times, and a fourth unlock returns false, on its lane and in the panel.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class AdvisoryLockWindowTest {

    private static final Pattern HEADLINE = Pattern.compile("advisory lock (-?[0-9]+) orphaned in (pool-[0-9]+)");

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void theDefaultLeavesTheLockInAConnectionNoWorkerOwnsAndEveryPlaceNamesIt(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Advisory locks and a pool");
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("STUCK") || v.startsWith("SAFE") || v.startsWith("RACE")
                || v.startsWith("ERROR"));
        Outcome outcome = window.session().record().outcome();
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        Matcher named = HEADLINE.matcher(outcome.headline());
        assertTrue(named.matches(), outcome.headline());
        String key = named.group(1);
        String connection = named.group(2);
        long left = outcome.metrics().get("locksLeftBehind").longValue();
        assertTrue(left >= 1, outcome.metrics().toString());
        assertEquals("STUCK — " + outcome.headline(), robot.lookup("#verdict").queryAs(Label.class).getText());

        assertEquals(List.of(String.valueOf(left)), panelValues(ui, "locks left behind"));
        assertEquals(List.of(String.valueOf(outcome.metrics().get("falseUnlocks"))),
                panelValues(ui, "false unlocks"));
        assertEquals(List.of(String.valueOf(outcome.metrics().get("refusedTries"))),
                panelValues(ui, "tries refused"));
        assertEquals(List.of(String.valueOf(outcome.metrics().get("overlappingSections"))),
                panelValues(ui, "overlapping sections"));
        long falsesInTable = ui.panels(window).stream().filter(Panel.Table.class::isInstance)
                .map(Panel.Table.class::cast).filter(t -> t.title().equals("Each worker"))
                .flatMap(t -> t.rows().stream()).mapToLong(row -> falses(row.get(3))).sum();
        assertEquals(outcome.metrics().get("falseUnlocks").longValue(), falsesInTable,
                "each worker's unlock answers add up to the run's false unlocks");
        assertTrue(panelItems(ui).contains(connection + " · key " + key + " · held " + left
                + "× · ORPHANED: no worker owns it"), panelItems(ui).toString());
        List<String> picture = ui.picture(window).texts();
        assertTrue(picture.contains("locks left behind: " + left), picture.toString());
        assertTrue(picture.contains(connection) && picture.contains("key " + key + " · " + left + "×")
                && picture.contains("ORPHANED: no worker owns it"), picture.toString());

        // PostgreSQL's own lane: its last read found the lock in that connection, nobody's, in the race's colour.
        TimelineModel timeline = window.view().timeline().model();
        Lane locks = lane(timeline, "PostgreSQL locks");
        int last = locks.labelText.size() - 1;
        assertEquals(connection + " holds advisory lock " + key + ", no worker owns it", locks.labelText.get(last));
        assertEquals(Ink.RACE.ordinal(), locks.labelInk.get(last));
        assertEquals(outcome.places().size(), timeline.violations(), "a ✕ where each lock was left, and each overlap");
        assertTrue(timeline.count(EventKind.UNLOCK_FALSE) >= left, "⊘ where the unlocks returned false");

        JsonObject replay = ui.replay(window, dir.resolve("advisory-lock.racelab"));
        assertEquals("STUCK", replay.get("verdict").getAsString());
        assertEquals(outcome.headline(), replay.get("headline").getAsString());
        assertEquals(left, replay.getAsJsonObject("metrics").get("locksLeftBehind").getAsLong());
        assertEquals(1, replay.getAsJsonObject("metrics").get("orphanedLocks").getAsLong());
    }

    @Test
    void threeLocksNeedThreeUnlocksAndTheFourthReturnsFalseOnTheLaneAndInThePanel(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Advisory locks and a pool");
        ui.chooseStrategy("session-pinned");
        robot.interact(() -> {
            var session = window.session();
            session.workersProperty().set(1);
            session.opsProperty().set(1);
            session.switchesProperty().set(SwitchValues.DEFAULTS.parse(
                    session.lab().profile().switchNamed("reentrancy").orElseThrow(), "one-too-many"));
        });
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("STUCK") || v.startsWith("SAFE") || v.startsWith("RACE")
                || v.startsWith("ERROR"));
        Outcome outcome = window.session().record().outcome();
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        List<List<String>> workers = ui.panels(window).stream().filter(Panel.Table.class::isInstance)
                .map(Panel.Table.class::cast).filter(t -> t.title().equals("Each worker")).findFirst().orElseThrow()
                .rows();
        assertEquals(List.of(List.of("worker-1", "—", "0", "true ×3, false")), workers);
        TimelineModel timeline = window.view().timeline().model();
        assertEquals(3, timeline.count(EventKind.LOCK_ACQUIRED));
        assertEquals(3, timeline.count(EventKind.LOCK_RELEASED));
        assertEquals(1, timeline.count(EventKind.UNLOCK_FALSE), "the fourth unlock's ⊘ on the lane");
        assertEquals(List.of("3", "1", "0"), List.of(panelValues(ui, "locks granted").get(0),
                panelValues(ui, "false unlocks").get(0), panelValues(ui, "locks left behind").get(0)));
    }

    private static Lane lane(TimelineModel timeline, String name) {
        for (int i = 0; i < timeline.laneCount(); i++) {
            if (timeline.laneName(i).equals(name)) {
                return timeline.lane(i);
            }
        }
        throw new AssertionError("no lane " + name);
    }

    private List<String> panelValues(WindowDriver ui, String label) throws Exception {
        return ui.panels(window).stream().filter(Panel.Values.class::isInstance)
                .flatMap(panel -> ((Panel.Values) panel).rows().stream())
                .filter(row -> row.label().equals(label)).map(Panel.Value::value).toList();
    }

    private List<String> panelItems(WindowDriver ui) throws Exception {
        return ui.panels(window).stream().filter(Panel.Items.class::isInstance)
                .flatMap(panel -> ((Panel.Items) panel).items().stream()).map(Panel.Item::text).toList();
    }

    /** How many falses a cell of the workers' table counts ("true ×2, false ×3": 3; "false": 1). */
    private static long falses(String cell) {
        Matcher m = Pattern.compile("false(?: ×([0-9]+))?").matcher(cell);
        return m.find() ? (m.group(1) == null ? 1 : Long.parseLong(m.group(1))) : 0;
    }
}
