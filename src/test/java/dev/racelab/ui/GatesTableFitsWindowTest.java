package dev.racelab.ui;

import dev.racelab.engine.Lab;
import dev.racelab.ui.gates.GatesTable;
import javafx.geometry.Bounds;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.CheckBox;
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
 * At projector size (1600×1000) every lab's gates table shows every gate, whole, beside the worker
 * column, with no horizontal scrolling, and a long verdict above it never squeezes its rows away.
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
        stage.setWidth(1600);
        stage.setHeight(1000);
    }

    @Test
    void everyLabsGatesAndWorkersAreInViewWithoutScrollingEvenUnderALongVerdict(FxRobot robot) {
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
            problems.addAll(whatIsHidden(robot, id));
            robot.interact(() -> window.view().banner().showIdle(("Deadlock: philosopher-1 waits for "
                    + "philosopher-2, who waits for philosopher-3, … who waits for philosopher-1. ").repeat(6)));
            WaitForAsyncUtils.waitForFxEvents();
            problems.addAll(whatIsHidden(robot, id + " under a long verdict"));
        }
        if (!problems.isEmpty()) {
            new WindowDriver(robot).snapshot("gates-table-fits");
        }
        assertEquals(List.of(), problems);
    }

    /** What of the shown lab's gates table a user cannot see: each problem in words. */
    private List<String> whatIsHidden(FxRobot robot, String lab) {
        GatesTable table = robot.lookup(".gates-table").queryAs(GatesTable.class);
        List<String> problems = new ArrayList<>();
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
        if (wholeRows < 3) {
            problems.add(lab + ": only " + wholeRows + " whole rows of the gates table are in view");
        }
        return problems;
    }
}
