package dev.racelab.ui.explore;

import dev.racelab.engine.Verdict;
import dev.racelab.engine.explore.Found;
import javafx.css.PseudoClass;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.util.Duration;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The schedules of an exploration as cells, in the order they ran, coloured by verdict: green a
 * schedule that ended SAFE, red one that failed. A click plays the schedule on the timeline; the
 * shrunk failure's cell is outlined. The first {@link #MOST} are drawn; the rest are counted.
 * Owned by the FX thread.
 */
final class ScheduleGrid extends FlowPane {

    /** Cells drawn at most: enough to see the pattern, few enough for a light scene. */
    static final int MOST = 2_000;

    private static final PseudoClass SAFE = PseudoClass.getPseudoClass("safe");
    private static final PseudoClass FAILED = PseudoClass.getPseudoClass("failed");
    private static final PseudoClass MARKED = PseudoClass.getPseudoClass("shown");

    private final List<Label> cells = new ArrayList<>();
    private final List<Found> schedules = new ArrayList<>();
    private final Consumer<Found> play;
    private final IntFunction<String> names;

    ScheduleGrid(Consumer<Found> play, IntFunction<String> names) {
        this.play = play;
        this.names = names;
        getStyleClass().add("schedule-grid");
        setId("schedule-grid");
    }

    void clear() {
        cells.clear();
        schedules.clear();
        getChildren().clear();
    }

    /** Adds the cell of a schedule that ended. */
    void add(Found schedule) {
        schedules.add(schedule);
        if (cells.size() >= MOST) {
            return;
        }
        Label cell = new Label();
        cell.getStyleClass().add("schedule-cell");
        cell.setId("schedule-" + (schedule.index() + 1));
        boolean safe = schedule.verdict() == Verdict.SAFE;
        cell.pseudoClassStateChanged(safe ? SAFE : FAILED, true);
        Tooltip tip = new Tooltip("#" + (schedule.index() + 1) + "  " + schedule.verdict() + " · " + schedule.headline()
                + " · " + schedule.preemptions() + (schedule.preemptions() == 1 ? " preemption" : " preemptions")
                + "\n" + schedule.interleaving() + "\nclick to play it on the timeline");
        tip.setShowDelay(Duration.millis(150));
        tip.setWrapText(true);
        tip.setMaxWidth(640);
        cell.setTooltip(tip);
        cell.setOnMouseClicked(e -> play.accept(schedule));
        cells.add(cell);
        getChildren().add(cell);
    }

    /** Every schedule that ended, drawn or not, in order. */
    List<Found> schedules() {
        return schedules;
    }

    /** Outlines the cell of {@code schedule} (by index), and no other. */
    void mark(int index) {
        for (int i = 0; i < cells.size(); i++) {
            cells.get(i).pseudoClassStateChanged(MARKED, schedules.get(i).index() == index);
        }
    }

    /** The worker names of a schedule, for words. */
    String describe(Found schedule) {
        return schedule.schedule().describe(names);
    }
}
