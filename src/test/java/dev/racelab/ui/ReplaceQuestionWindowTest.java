package dev.racelab.ui;

import dev.racelab.export.CsvExport;
import dev.racelab.support.OddFiles;
import dev.racelab.ui.exports.ExportFiles;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.DialogPane;
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
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window writes a file over another only when the user said so: a name that no chooser asked
 * about (typed, dropped, a default) and that exists is asked about first, and Cancel leaves it as it
 * was; a FIFO named as the file to save is refused in a message naming it, and left as it was.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class ReplaceQuestionWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    /** The dialog styled {@code style}; fails saying {@code what} if none shows. */
    private static DialogPane awaitDialog(FxRobot robot, String style, String what) throws Exception {
        new WindowDriver(robot).await(what, () -> robot.lookup("." + style).tryQuery().isPresent());
        return robot.lookup("." + style).queryAs(DialogPane.class);
    }

    private static void answer(FxRobot robot, DialogPane dialog, ButtonType button) throws Exception {
        javafx.stage.Window shown = WindowDriver.onFx(() -> dialog.getScene().getWindow());
        robot.interact(() -> ((Button) dialog.lookupButton(button)).fire());
        new WindowDriver(robot).await("the dialog closes after " + button.getText(), () -> !shown.isShowing());
    }

    @Test
    void anExistingFileIsReplacedOnlyAfterTheUserSaysSoAndAFifoIsRefused(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        ExportFiles exports = window.view().exports();

        Path csv = Files.writeString(dir.resolve("events.csv"), "mine");
        robot.interact(() -> exports.exportTo(ExportFiles.Kind.CSV, csv));
        DialogPane question = awaitDialog(robot, "replace-question", "a question before replacing " + csv);
        assertTrue(question.getHeaderText().contains("events.csv"), question.getHeaderText());
        answer(robot, question, ButtonType.CANCEL);
        assertEquals("mine", Files.readString(csv), "Cancel leaves the file as it was");
        assertNull(WindowDriver.onFx(() -> exports.exportedProperty().get()), "and nothing was exported");

        robot.interact(() -> exports.exportTo(ExportFiles.Kind.CSV, csv));
        answer(robot, awaitDialog(robot, "replace-question", "the question asked again"), ButtonType.OK);
        ui.await("exported to " + csv + " after OK", () -> csv.equals(exports.exportedProperty().get()));
        assertEquals(CsvExport.HEADER, Files.readAllLines(csv).get(0), "replaced once the user said so");

        Path fifo = OddFiles.fifo(dir.resolve("run.racelab"));
        String before = OddFiles.snapshot(fifo);
        robot.interact(() -> window.view().recordings().saveTo(fifo));
        DialogPane refused = awaitDialog(robot, "output-refused", "a message refusing the FIFO " + fifo);
        assertTrue(refused.getContentText().contains(fifo.toString()) && refused.getContentText().contains("FIFO"),
                refused.getContentText());
        answer(robot, refused, ButtonType.OK);
        assertEquals(before, OddFiles.snapshot(fifo), "the FIFO is left as it was");
        assertNull(WindowDriver.onFx(() -> window.view().recordings().savedProperty().get()), "nothing was saved");
        assertEquals(List.of(), OddFiles.hidden(dir), "no temporary file left");
    }
}
