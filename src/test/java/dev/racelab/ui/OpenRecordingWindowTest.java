package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.backend.Backends;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Service;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingWriter;
import dev.racelab.support.TestServers;
import dev.racelab.ui.startup.ServerDialog;
import dev.racelab.ui.startup.ServerStartup;
import dev.racelab.engine.view.timeline.TimelineModel;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recording made by real runs against the test servers, opened in a window whose servers do not
 * answer: it shows the recorded timeline, panels, picture and verdict with the run controls off;
 * a damaged or foreign file gets one message and changes nothing.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class OpenRecordingWindowTest {

    @TempDir
    static Path dir;

    /** The runs as they were live, in the order they were recorded. */
    private static final List<RunRecord> LIVE = new ArrayList<>();
    private static Lab philosophers;
    private static Switch<?> thinkMs;
    private static Path recording;

    private Stage stage;
    private RaceLabWindow window;
    private Backends backends;
    private ServerStartup startup;

    /** Two runs of the philosophers with a switch set, recorded as the command line's --runs 2 --record does. */
    @BeforeAll
    static void recordTwoRuns() throws Exception {
        philosophers = new Labs(TestServers.backends()).find("dining-philosophers").orElseThrow();
        thinkMs = philosophers.profile().switchNamed("think-ms").orElseThrow();
        RunSpec spec = philosophers.defaults().withStrategy("ordered").withWorkers(5).withOps(4)
                .withSwitches(SwitchValues.DEFAULTS.parse(thinkMs, "7")).withObserve(true);
        recording = dir.resolve("philosophers.racelab");
        try (RecordingWriter writer = RecordingWriter.create(recording)) {
            for (int seed = 1; seed <= 2; seed++) {
                Run run = new Run(philosophers, spec.withSeed(seed), Clock.system());
                run.start();
                assertEquals(Verdict.SAFE, run.awaitOutcome(Duration.ofMinutes(2)).verdict());
                run.record().backend(Map.of("redis", TestServers.backends().describe(Service.REDIS)));
                writer.write(philosophers, run.record());
                LIVE.add(run.record());
            }
            writer.commit(1, 0, false);
        }
    }

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        startup = new ServerStartup();
        backends = UnreachableServers.backends(startup);
        window = RaceLabWindow.show(stage, backends, new Settings(dir.resolve("open-" + System.nanoTime()
                + ".properties")), startup);
    }

    @AfterEach
    void closeServers() {
        backends.close();
    }

    @Test
    void anOpenedRecordingShowsTheRunAsItWasLiveWithNoServerAndABadFileChangesNothing(FxRobot robot)
            throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        dismissServerDialogs(robot);
        RunRecord ready = window.session().record();
        Lab lab = window.session().lab();

        Path truncated = dir.resolve("truncated.racelab");
        List<String> lines = Files.readAllLines(recording);
        Files.write(truncated, lines.subList(0, lines.size() / 2));
        String cut = openExpectingProblem(robot, truncated);
        assertEquals(truncated + " ends before it is complete (cut short after line " + lines.size() / 2
                + "): it was not written to the end", cut);
        assertSame(ready, window.session().record(), "the shown run is the one shown before");
        assertSame(lab, window.session().lab());
        assertFalse(window.session().replayingProperty().get());

        robot.interact(() -> window.view().recordings().open(recording));
        ui.await("the run picker is shown", () -> robot.lookup(".run-picker").tryQuery().isPresent());
        DialogPane picker = robot.lookup(".run-picker").queryAs(DialogPane.class);
        assertEquals("philosophers.racelab holds 2 runs. Which one should RaceLab show?", picker.getHeaderText());
        robot.interact(() -> ((Button) picker.lookupButton(picker.getButtonTypes().get(0))).fire());
        ui.await("the recording is shown", () -> window.session().replayingProperty().get());

        RunRecord live = LIVE.get(1);
        RunRecord shown = window.session().record();
        assertEquals(live.header(), shown.header(), "the last run is shown unless another is chosen");
        assertEquals(live.outcome().banner(), ui.verdict());
        assertEquals(List.of(), disabledNot(robot, "run", "pause", "step", "stop"), "no run to command");
        assertEquals(laneNames(live), laneNames(window.view().timeline().model()));
        List<Panel> panels = panelsOf(live);
        assertFalse(panels.isEmpty());
        assertEquals(panels, window.view().stateColumn().shownPanels());
        assertTrue(window.view().stateColumn().pictureBox().isVisible(), "the philosophers' table is drawn");
        assertFalse(window.view().timeline().followLiveProperty().get(), "the whole run is in view, to scrub");
        assertEquals(7, robot.lookup("#switch-think-ms").queryAs(Spinner.class).getValue(),
                "the controls show the recorded settings");
        assertEquals("philosophers.racelab", robot.lookup("#recording-file").queryAs(Label.class).getText());
        String facts = robot.lookup("#recording-facts").queryAs(Label.class).getText();
        assertTrue(facts.startsWith("run 2 of 2 · recorded ") && facts.endsWith(" · against "
                + live.backend().get("redis")), facts);
        assertTrue(robot.lookup(".recording-bar").query().isVisible(), "with Run these settings again");
        assertEquals("philosophers.racelab — RaceLab", stage.getTitle());

        Path foreign = dir.resolve("package.json");
        Files.writeString(foreign, "{\"name\":\"left-pad\",\"version\":\"1.3.0\"}\n");
        assertEquals(foreign + " is not a RaceLab recording", openExpectingProblem(robot, foreign));
        assertSame(shown, window.session().record(), "the recording stays shown");
        assertTrue(window.session().replayingProperty().get());
        assertEquals(live.outcome().banner(), ui.verdict());

        ui.setSpinner("Operations per worker", 5);
        assertFalse(window.session().replayingProperty().get(), "a changed setting leaves the recording");
        assertFalse(robot.lookup("#run-button").query().isDisabled());
        assertFalse(robot.lookup(".recording-bar").query().isVisible());
    }

    /** Both servers are unreachable: each offers its dialog, which the user puts off. */
    private void dismissServerDialogs(FxRobot robot) throws Exception {
        new WindowDriver(robot).await("the status bar says PostgreSQL is not available", () -> startup.statusProperty(Service.POSTGRES).get().endsWith("not available")
                && startup.statusProperty(Service.REDIS).get().endsWith("not available"));
        while (robot.lookup(".server-dialog").tryQuery().isPresent()) {
            DialogPane dialog = robot.lookup(".server-dialog").queryAs(DialogPane.class);
            robot.interact(() -> ((Button) dialog.lookupButton(ServerDialog.LATER)).fire());
        }
    }

    /** Opens {@code file} as the menu does, expects the one message, closes it and returns it. */
    private String openExpectingProblem(FxRobot robot, Path file) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        robot.interact(() -> window.view().recordings().open(file));
        ui.await("the recording's problem is shown", () -> robot.lookup(".recording-problem").tryQuery().isPresent());
        DialogPane dialog = robot.lookup(".recording-problem").queryAs(DialogPane.class);
        String message = dialog.getContentText();
        assertEquals("This recording cannot be opened", dialog.getHeaderText());
        robot.interact(() -> ((Button) dialog.lookupButton(ButtonType.OK)).fire());
        ui.await("the problem is closed", () -> robot.lookup(".recording-problem").tryQuery().isEmpty());
        assertTrue(robot.lookup(".run-picker").tryQuery().isEmpty());
        return message;
    }

    private static List<String> disabledNot(FxRobot robot, String... buttons) {
        List<String> enabled = new ArrayList<>();
        for (String button : buttons) {
            Node node = robot.lookup("#" + button + "-button").query();
            if (!node.isDisabled()) {
                enabled.add(button);
            }
        }
        return enabled;
    }

    /** Lane names by actor id, as the record announces them. */
    private static List<String> laneNames(RunRecord record) {
        List<String> names = new ArrayList<>();
        for (Event event : record.events().snapshot()) {
            if (event.kind() == EventKind.ACTOR) {
                while (names.size() <= event.actor()) {
                    names.add(null);
                }
                names.set(event.actor(), event.subject());
            }
        }
        assertTrue(names.containsAll(List.of("philosopher-1", "philosopher-5")), "the run's lanes: " + names);
        return names;
    }

    private static List<String> laneNames(TimelineModel model) {
        List<String> names = new ArrayList<>();
        for (int lane = 0; lane < model.laneCount(); lane++) {
            names.add(model.laneName(lane));
        }
        return names;
    }

    /** The lab's panels for {@code record}, fed every event of it, as a fresh view would show them. */
    private static List<Panel> panelsOf(RunRecord record) {
        LabView view = philosophers.view(record.header());
        record.events().snapshot().forEach(view::accept);
        return view.panels();
    }
}
