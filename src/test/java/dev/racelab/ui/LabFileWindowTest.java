package dev.racelab.ui;

import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.TestServers;
import dev.racelab.ui.exports.ExportFiles;
import dev.racelab.ui.labfiles.ChangedFiles;
import dev.racelab.ui.shell.LabList;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A teacher's lab file in the window: the one in the user's folder shows in the lab list marked
 * as theirs, runs on the real servers, is saved, opens again with the file gone, and exports; a
 * file changed on disk is offered again, and a broken one named with its line and column.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class LabFileWindowTest {

    private static final Path EXAMPLES = Path.of("src/main/resources/dev/racelab/labfiles");
    private static final String TITLE = "GET, then SET";

    @TempDir
    static Path dir;

    private RaceLabWindow window;
    private Path folder;

    @Start
    void start(Stage stage) throws Exception {
        window = WindowDriver.showOnTestServers(stage, dir);
        folder = window.view().labFiles().folder();
        Files.createDirectories(folder);
        Files.copy(EXAMPLES.resolve("redis-counter.lab"), folder.resolve("my-counter.lab"));
    }

    private LabList list(FxRobot robot) {
        return robot.lookup("." + LabList.STYLE).queryAs(LabList.class);
    }

    private List<String> said(FxRobot robot) {
        return robot.lookup("." + ChangedFiles.STYLE).queryAs(ChangedFiles.class).said();
    }

    @Test
    void aLabFileOfTheUsersRunsRecordsReplaysWithoutItAndExports(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.await("the user's lab is listed", () -> list(robot).getItems().stream()
                .anyMatch(lab -> lab.title().equals(TITLE)));
        Lab listed = list(robot).getItems().stream().filter(lab -> lab.title().equals(TITLE)).findFirst().orElseThrow();
        assertTrue(dev.racelab.ui.labfiles.LabFiles.isYours(listed), "marked as the user's");
        assertEquals("my-counter.lab", listed.id());
        assertTrue(robot.lookup("your lab file").tryQuery().isPresent(), "the mark is on screen");

        ui.chooseLab(TITLE);
        ui.press("run");
        String verdict = ui.awaitVerdict(v -> v.startsWith("SAFE") || v.startsWith("RACE") || v.startsWith("ERROR")
                || v.startsWith("STUCK") || v.startsWith("DEADLOCK"));
        assertTrue(verdict.startsWith("RACE — lost increment"), verdict);

        Path file = dir.resolve("mine.racelab");
        robot.interact(() -> window.view().recordings().saveTo(file));
        ui.await("the recording is saved", () -> window.view().recordings().savedProperty().get() != null);
        // Read by a reader that never saw the file: the recording carries it.
        Recording saved = new RecordingReader(new Labs(TestServers.backends())).read(file);
        assertEquals("my-counter.lab", saved.last().header().lab());
        assertEquals(window.session().record().outcome().banner(), saved.last().outcome().banner());

        // Another lab on screen first (chosen by id: a click on a list just scrolled may land on its neighbour).
        robot.interact(() -> window.view().selectLab("counter"));
        ui.await("the counter lab is shown", () -> window.session().lab().id().equals("counter"));
        robot.interact(() -> window.view().recordings().open(file));
        ui.await("the recording is shown", () -> window.session().replayingProperty().get());
        // The banner follows once the opened run's events are shown, a frame or two later.
        assertEquals(verdict, ui.awaitVerdict(v -> v.matches("(SAFE|RACE|ERROR|STUCK|DEADLOCK) .*")), "the same verdict, replayed with the file gone");
        assertEquals("my-counter.lab", window.session().lab().id());
        // The file goes while its recording is on screen: the looks at the labs folder that find it
        // gone (every 1.5 s) leave the replay as it is.
        int looked = window.view().labFiles().looks();
        Files.delete(folder.resolve("my-counter.lab"));
        ui.await("two looks at the folder with the file gone", () -> window.view().labFiles().looks() >= looked + 2);
        assertTrue(window.session().replayingProperty().get(), "still the recording, with its lab file gone");
        assertEquals("my-counter.lab", window.session().lab().id());

        Path csv = dir.resolve("mine.csv");
        robot.interact(() -> window.view().exports().exportTo(ExportFiles.Kind.CSV, csv));
        ui.await("the export is written", () -> Files.exists(csv));
        assertEquals(saved.last().events().size() + 1, Files.readAllLines(csv).size(), "every event, and a header");
        Path png = dir.resolve("mine.png");
        robot.interact(() -> window.view().exports().exportTo(ExportFiles.Kind.TIMELINE_PNG, png));
        ui.await("the picture is written", () -> Files.exists(png) && Files.size(png) > 1000);
    }

    @Test
    void aChangedFileIsOfferedAgainAndABrokenOneNamesItsLine(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        Path mine = folder.resolve("my-counter.lab");
        ui.await("the user's lab is listed", () -> list(robot).getItems().stream()
                .anyMatch(lab -> lab.id().equals("my-counter.lab")));
        ui.chooseLab(TITLE);

        Files.writeString(mine, Files.readString(mine).replace("title \"GET, then SET\"", "title \"GET, then SET again\""));
        Files.setLastModifiedTime(mine, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));
        ui.await("the change is offered", () -> said(robot).contains("my-counter.lab changed on disk."));
        assertEquals(TITLE, window.session().lab().title(), "nothing changes until the user says so");
        robot.clickOn("#reload-my-counter-lab");
        ui.await("the lab is read again", () -> window.session().lab().title().equals("GET, then SET again"));
        assertTrue(list(robot).getItems().stream().anyMatch(lab -> lab.title().equals("GET, then SET again")));
        assertFalse(list(robot).getItems().stream().anyMatch(lab -> lab.title().equals(TITLE)), "in its place");
        assertTrue(said(robot).isEmpty(), said(robot).toString());

        Files.writeString(folder.resolve("broken.lab"), "title \"Broken\"\nsession s\nstep a redis { GET user:1 }\n");
        ui.await("the broken file is named", () -> said(robot).stream().anyMatch(line -> line.contains("broken.lab:3:")));
        int labs = list(robot).getItems().size();
        assertFalse(list(robot).getItems().stream().anyMatch(lab -> lab.title().equals("Broken")));
        assertEquals(labs, list(robot).getItems().size());
    }

    @Test
    void aLabFilesOwnWalkthroughOpensWithF2AndItsStepsSetTheFilesSwitch(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        Files.copy(Path.of("src/test/resources/dev/racelab/labfile/switched.lab"),
                folder.resolve("switched.lab"));
        ui.await("the lab is listed", () -> list(robot).getItems().stream()
                .anyMatch(lab -> lab.id().equals("switched.lab")));
        ui.chooseLab("A switch of its own");
        robot.press(javafx.scene.input.KeyCode.F2).release(javafx.scene.input.KeyCode.F2);
        ui.await("its walkthrough opens", () -> window.view().walkthroughBar().isOpen());
        assertEquals("Lost in a GET and a SET", window.view().walkthroughBar().walkthroughProperty().get().title());
        robot.interact(() -> window.view().walkthroughBar().move(1));
        ui.await("the fix is chosen", () -> window.session().switchesProperty().get()
                .describe(window.session().lab().switches()).equals(java.util.Map.of("fix", "incr")));
    }

    @Test
    void aBatchOfTheUsersLabCountsTheRaceAndTheFix(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.await("the user's lab is listed", () -> list(robot).getItems().stream()
                .anyMatch(lab -> lab.title().equals(TITLE)));
        ui.chooseLab(TITLE);
        dev.racelab.ui.batch.BatchWindow batch = WindowDriver.onFx(() -> window.view().openBatch());
        WindowDriver.onFx(() -> robot.lookup(".check-box").queryAllAs(javafx.scene.control.CheckBox.class).stream()
                .filter(box -> box.getId() != null && box.getId().startsWith("batch-strategy-"))
                .peek(box -> box.setSelected(List.of("get_set", "incr").contains(box.getId().substring(15)))).count());
        WindowDriver.onFx(() -> batch.start());
        ui.await("the batch ends", () -> batch.resultProperty().get() != null);
        dev.racelab.engine.Batch.Result result = batch.resultProperty().get();
        dev.racelab.engine.Batch.Point broken = result.points().get("get_set").get(0);
        dev.racelab.engine.Batch.Point fixed = result.points().get("incr").get(0);
        assertTrue(broken.failed() >= broken.runs() - 1, "the race in (nearly) every run: " + broken.verdicts());
        assertEquals(fixed.runs(), fixed.verdicts().get(dev.racelab.engine.Verdict.SAFE), fixed.verdicts().toString());
        WindowDriver.onFx(() -> batch.stage().close());
    }
}
