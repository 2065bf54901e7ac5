package dev.racelab.ui.shell;

import dev.racelab.engine.lab.Lab;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.gates.GatesTable;
import dev.racelab.ui.isolation.IsolationBench;
import dev.racelab.ui.timeline.TimelineView;
import javafx.scene.control.SplitPane;
import javafx.scene.layout.Region;

import java.util.function.BooleanSupplier;

/**
 * Shares the middle column's height out between the timeline (with its toolbar, legend and the
 * verdict under it) and the pane under it. The timeline keeps what shows every lane, each as thin
 * as its words allow, and the verdict as long as it is now; the gates get the rest, up to what
 * shows their header and a row for all workers and one per worker (up to {@link
 * GatesTable#ROOM_FOR_WORKERS}), whole, and the timeline any height left over. So before a run
 * every default worker's row is in view; a long verdict takes room from the gates' rows, which
 * scroll (a few stay in view, {@link GatesTable}), rather than from the lanes. The isolation lab's
 * bench has its own share. Owned by the FX thread.
 */
final class MiddleColumn {

    /** Where the timeline ends for the isolation lab, whose bench needs room under it. */
    private static final double ISOLATION_DIVIDER = 0.56;
    /** The divider's own height, about. */
    private static final double DIVIDER = 8;

    private final SplitPane middle;
    private final Region timelineBox;
    private final TimelineView timeline;
    private final Region gatesPane;
    private final GatesTable gates;
    private final Region lowerPane;
    private final Session session;
    private final BooleanSupplier presenting;

    MiddleColumn(SplitPane middle, Region timelineBox, TimelineView timeline, Region gatesPane, GatesTable gates,
                 Region lowerPane, Session session, BooleanSupplier presenting) {
        this.middle = middle;
        this.timelineBox = timelineBox;
        this.timeline = timeline;
        this.gatesPane = gatesPane;
        this.gates = gates;
        this.lowerPane = lowerPane;
        this.session = session;
        this.presenting = presenting;
    }

    /** Sets the divider as the lab, its workers, the verdict and the window's height now ask. */
    void fit() {
        Lab lab = session.lab();
        double height = middle.getHeight();
        if (lab == null || presenting.getAsBoolean() || height <= 0 || !middle.getItems().contains(lowerPane)) {
            return;
        }
        if (IsolationBench.shows(lab)) {
            middle.setDividerPositions(ISOLATION_DIVIDER);
            return;
        }
        int rows = 1 + Math.min(session.workersProperty().get(), GatesTable.ROOM_FOR_WORKERS);
        double aboveTable = gatesPane.getHeight() > 0 ? gatesPane.getHeight() - gates.getHeight()
                : gatesPane.getChildrenUnmodifiable().get(0).prefHeight(-1);
        double gatesNeed = aboveTable + gates.heightFor(rows) + lowerPane.snappedTopInset()
                + lowerPane.snappedBottomInset();
        int lanes = Math.max(timeline.laneCount(), session.workersProperty().get() + 1);
        double timelineNeed = timelineBox.getHeight() - timeline.getHeight() + timeline.heightFor(lanes);
        double lower = Math.max(0, Math.min(gatesNeed, height - DIVIDER - timelineNeed));
        double position = Math.max(0.5, 1 - (lower + DIVIDER) / height);
        if (Math.abs(position - middle.getDividerPositions()[0]) > 0.002) {
            middle.setDividerPositions(position);
        }
    }
}
