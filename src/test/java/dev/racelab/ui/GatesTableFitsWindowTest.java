package dev.racelab.ui;

import dev.racelab.engine.lab.Lab;
import dev.racelab.ui.gates.GatesTable;
import javafx.geometry.Bounds;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import dev.racelab.ui.timeline.TimelineView;
import javafx.scene.Parent;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Labeled;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.text.Text;
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
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * At the window's default size (1440×900) every lab's gates table shows every gate, whole, beside
 * the worker column, with no horizontal scrolling, and a row for all workers and one per default
 * worker; the timeline shows every lane; no label anywhere in the window is cut short ("…"). A long
 * verdict above the gates takes room from their rows, never all of them, and never from the lanes.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class GatesTableFitsWindowTest {

    @TempDir
    static Path settingsDir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, settingsDir);
        stage.setX(0);
        stage.setY(0);
    }

    @Test
    void everyLabsGatesWorkersAndLanesAreInViewAndNoLabelIsCutEvenUnderALongVerdict(FxRobot robot) {
        Stage stage = (Stage) window.view().getScene().getWindow();
        assertEquals(List.of(1440.0, 900.0), List.of(stage.getWidth(), stage.getHeight()), "the default size");
        ListView<?> labs = robot.lookup(".lab-list").queryAs(ListView.class);
        List<String> ids = new ArrayList<>();
        for (Object lab : labs.getItems()) {
            ids.add(((Lab) lab).id());
        }
        assertTrue(ids.size() >= 5, "the labs: " + ids);
        List<String> problems = new ArrayList<>();
        for (String id : ids) {
            robot.interact(() -> window.view().selectLab(id));
            WaitForAsyncUtils.waitForFxEvents();
            problems.addAll(whatIsHidden(robot, id, true));
            robot.interact(() -> window.view().banner().showIdle(("Deadlock: philosopher-1 waits for "
                    + "philosopher-2, who waits for philosopher-3, … who waits for philosopher-1. ").repeat(6)));
            WaitForAsyncUtils.waitForFxEvents();
            problems.addAll(whatIsHidden(robot, id + " under a long verdict", false));
        }
        if (!problems.isEmpty()) {
            new WindowDriver(robot).snapshot("gates-table-fits");
        }
        assertEquals(List.of(), problems);
    }

    /**
     * What of the shown lab a user cannot see, each problem in words: the gates table's columns and
     * rows ({@code everyRow}: all workers and a row per worker, as many as the window makes room
     * for; else at least three), the timeline's lanes, and any label cut short.
     */
    private List<String> whatIsHidden(FxRobot robot, String lab, boolean everyRow) {
        GatesTable table = robot.lookup(".gates-table").queryAs(GatesTable.class);
        List<String> problems = new ArrayList<>();
        cutLabels(window.view(), lab, problems);
        TimelineView timeline = window.view().timeline();
        int lanes = Math.max(timeline.laneCount(), window.session().workersProperty().get());
        if (timeline.getHeight() + 0.5 < timeline.heightFor(lanes)) {
            problems.add(lab + ": the timeline shows " + timeline.getHeight() + " px of the " + timeline.heightFor(lanes)
                    + " its " + lanes + " lanes need");
        }
        for (Node node : table.lookupAll(".scroll-bar")) {
            if (node instanceof ScrollBar bar && bar.getOrientation() == Orientation.HORIZONTAL && bar.isVisible()) {
                problems.add(lab + ": the gates table scrolls sideways");
            }
        }
        Bounds view = table.localToScene(table.getLayoutBounds());
        for (TableColumn<GatesTable.Row, ?> column : table.getColumns()) {
            String name = column.getGraphic() instanceof Label header ? header.getText().replace("\n", "") : column.getText();
            Node header = column.getGraphic() != null ? column.getGraphic() : null;
            if (header != null) {
                // The label's own text, not its graphic's (a fault gate's ⚡).
                Text shown = ((Label) header).getChildrenUnmodifiable().stream().filter(Text.class::isInstance)
                        .map(Text.class::cast).findFirst().orElse(null);
                if (shown == null || !shown.getText().replace("\n", "").equals(name)) {
                    problems.add(lab + ": the header of " + name + " reads '" + (shown == null ? "" : shown.getText()) + "'");
                }
                Bounds at = header.localToScene(header.getLayoutBounds());
                if (at.getMaxX() > view.getMaxX() + 0.5 || at.getMinX() < view.getMinX() - 0.5 || at.getWidth() < 1) {
                    problems.add(lab + ": the header of " + name + " is not in view");
                }
            }
        }
        if (!table.getColumns().get(0).getText().equals("Worker")) {
            problems.add(lab + ": the first column is " + table.getColumns().get(0).getText());
        }
        int wholeRows = 0;
        for (Node node : table.lookupAll(".table-row-cell")) {
            TableRow<?> row = (TableRow<?>) node;
            if (!row.isVisible() || row.getItem() == null) {
                continue;
            }
            Bounds at = row.localToScene(row.getLayoutBounds());
            if (at.getMinY() >= view.getMinY() && at.getMaxY() <= view.getMaxY() + 0.5) {
                wholeRows++;
            }
            for (Node box : row.lookupAll(".check-box")) {
                Bounds b = box.localToScene(box.getLayoutBounds());
                if (box.isVisible() && (b.getMaxX() > view.getMaxX() + 0.5 || b.getWidth() < ((CheckBox) box).prefWidth(-1) - 0.5)) {
                    problems.add(lab + ": a breakpoint box in row " + ((GatesTable.Row) row.getItem()).name()
                            + " is cut or out of view");
                    break;
                }
            }
        }
        int rows = everyRow ? 1 + Math.min(window.session().workersProperty().get(), GatesTable.ROOM_FOR_WORKERS) : 3;
        if (wholeRows < rows) {
            problems.add(lab + ": only " + wholeRows + " whole rows of the gates table are in view, not " + rows);
        }
        return problems;
    }

    /** Every label under {@code node} whose words the window cut short: its text shown is not its text. */
    private static void cutLabels(Node node, String lab, List<String> problems) {
        if (!node.isVisible()) {
            return;
        }
        if (node instanceof Labeled labeled && labeled.getText() != null && !labeled.getText().isEmpty()) {
            for (Node child : labeled.getChildrenUnmodifiable()) {
                if (child instanceof Text shown && !shown.getText().equals(labeled.getText())) {
                    problems.add(lab + ": '" + labeled.getText() + "' reads '" + shown.getText() + "'");
                }
            }
        }
        if (node instanceof Parent parent) {
            parent.getChildrenUnmodifiable().forEach(child -> cutLabels(child, lab, problems));
        }
    }
}
