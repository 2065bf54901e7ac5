package dev.racelab.ui;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.Panel;
import dev.racelab.ui.isolation.IsolationBench;
import dev.racelab.ui.isolation.PermutationGrid;
import javafx.scene.control.ComboBox;
import javafx.scene.control.DialogPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The isolation lab in the window: a spec's sessions as lanes; a step blocked by another session
 * shown waiting with its blocker; each step's rows beside the timeline; the grid of every
 * permutation in colour, a click on a cell replaying that one; a spec file opened (as a drop
 * does), and a malformed one refused with its line and column.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
// Each spec makes and drops a database: nothing else of the build (SilentServerTest counts on its
// timing beside the others) runs beside these.
@Isolated
class IsolationWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    private List<String> lanes() {
        return window.session().record().events().snapshot().stream().filter(e -> e.kind() == EventKind.ACTOR)
                .map(Event::subject).toList();
    }

    private static List<String> items(List<Panel> panels, String title) {
        return panels.stream().filter(p -> p.title().equals(title)).map(Panel.Items.class::cast).findFirst()
                .orElseThrow(() -> new AssertionError("no panel " + title + " in " + panels)).items().stream()
                .map(Panel.Item::text).toList();
    }

    @Test
    void aSpecsSessionsAreLanesAndTheGridColoursEveryPermutation(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Isolation specs");
        IsolationBench bench = window.view().isolationBench();
        assertTrue(bench.isVisible(), "the bench shows for the isolation lab");
        assertEquals("Lost update (P4)", robot.lookup("#isolation-spec").queryAs(ComboBox.class).getConverter()
                .toString(robot.lookup("#isolation-spec").queryAs(ComboBox.class).getValue()));

        // By hand, in step mode: both clerks read, Alice deposits, and Bob's deposit waits for her.
        // Fired, not clicked: the bench has just been laid out, and a click aimed on a busy
        // machine may land where the button was a moment before.
        robot.interact(() -> robot.lookup("#isolation-by-hand").queryButton().fire());
        int stepped = 0;
        for (int worker : new int[] {0, 1, 0, 1, 0, 1}) {
            ui.await("session " + worker + " halted before step " + (stepped + 1),
                    () -> window.session().run() != null && window.session().run().gates().haltedAt(worker) != null);
            robot.interact(() -> window.session().step(worker));
            stepped++;
        }
        ui.await("the Waiting now panel names the waiting step", () -> items(ui.panels(window), "Waiting now").contains(
                "bob: b_deposit blocked by alice"));
        assertEquals(List.of("run", "alice", "bob", "observer"), lanes());
        robot.interact(() -> window.session().stop());
        ui.awaitVerdict(v -> !v.isEmpty() && !v.startsWith("Paused") && !v.startsWith("Running"));

        // The read-committed permutation played whole: the anomaly, who waited, the check's row.
        robot.interact(() -> bench.play(1));
        String verdict = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        assertEquals("RACE — anomaly: Lost update (P4)", verdict);
        List<Panel> panels = ui.panels(window);
        assertTrue(items(panels, "Steps").contains("bob · b_deposit (waited): done"), items(panels, "Steps").toString());
        Panel.Table check = panels.stream().filter(p -> p.title().equals("observer · check"))
                .map(Panel.Table.class::cast).findFirst().orElseThrow();
        assertEquals(List.of(List.of("120", "130", "t")), check.rows());
        assertTrue(window.session().record().events().snapshot().stream().anyMatch(e -> e.kind() == EventKind.STATE
                && e.state() == ActorState.WAITING && "b_deposit blocked by alice".equals(e.subject())));

        // Every permutation: read committed loses the update, the other two levels refuse it.
        robot.interact(() -> robot.lookup("#isolation-every").queryButton().fire());
        PermutationGrid grid = bench.grid();
        ui.await("every permutation ran", () -> grid.shown(3) != PermutationGrid.Shown.NOT_RUN);
        assertEquals(List.of(PermutationGrid.Shown.ANOMALY, PermutationGrid.Shown.REFUSED,
                PermutationGrid.Shown.REFUSED), List.of(grid.shown(1), grid.shown(2), grid.shown(3)));
        robot.clickOn("#permutation-2");
        String replayed = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("ERROR"));
        assertEquals("SAFE — no anomaly: bob · b_deposit: 40001 could not serialize access due to concurrent update",
                replayed);
        Outcome outcome = window.session().record().outcome();
        assertEquals(Verdict.SAFE, outcome.verdict());
        assertEquals(2, window.session().switchesProperty().get().get(dev.racelab.labs.isolation.IsolationLab.PERMUTATION));
    }

    @Test
    void aSpecFileOpensWithItsOwnSessionsAndAMalformedOneIsNamedWithItsPlace(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        Path good = dir.resolve("two-counters.spec");
        Files.writeString(good, """
                setup { CREATE TABLE c (n int); INSERT INTO c VALUES (0); }
                teardown { DROP TABLE c; }
                session left
                step l1 { UPDATE c SET n = n + 1; }
                session right
                step r1 { UPDATE c SET n = n + 1; }
                """);
        robot.interact(() -> window.view().openDropped(good));
        ui.await("the dropped spec is shown in the isolation lab", () -> window.session().lab().id().equals("isolation")
                && window.session().workersProperty().get() == 2);
        robot.interact(() -> window.view().isolationBench().play(2));
        String verdict = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("ERROR"));
        assertEquals("SAFE — 2 steps, 0 waited, none refused", verdict);
        assertEquals(List.of("run", "left", "right"), lanes());
        assertEquals(List.of("right · r1: done", "left · l1: done"), items(ui.panels(window), "Steps"));

        Path broken = dir.resolve("broken.spec");
        Files.writeString(broken, "session s1\nstep a { SELECT 1;\n");
        robot.interact(() -> window.view().openDropped(broken));
        ui.await("the spec's problem is shown", () -> robot.lookup("#spec-problem").tryQuery().isPresent());
        DialogPane problem = robot.lookup("#spec-problem").queryAs(DialogPane.class);
        assertEquals(broken + ":2:8: the SQL block opened here has no closing '}'", problem.getContentText());
        robot.interact(() -> problem.getScene().getWindow().hide());
    }
}
