package dev.racelab.ui.shell;

import dev.racelab.ui.timeline.TimelineView;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

/** The bar above the timeline: follow live, the whole run, zoom, compact lanes, and a hint of the mouse's ways. */
final class TimelineToolbar {

    private TimelineToolbar() {
    }

    static Region of(TimelineView timeline) {
        ToggleButton follow = new ToggleButton("Follow live");
        follow.selectedProperty().bindBidirectional(timeline.followLiveProperty());
        follow.setTooltip(new Tooltip("Keep the newest events in view (Ctrl+L)"));
        Button fit = new Button("Whole run");
        fit.setTooltip(new Tooltip("Show the whole run (Ctrl+0)"));
        fit.setOnAction(e -> timeline.fit());
        Button zoomIn = new Button("+");
        zoomIn.setTooltip(new Tooltip("Zoom in (Ctrl + mouse wheel)"));
        zoomIn.setOnAction(e -> timeline.zoomIn());
        Button zoomOut = new Button("−");
        zoomOut.setTooltip(new Tooltip("Zoom out (Ctrl + mouse wheel)"));
        zoomOut.setOnAction(e -> timeline.zoomOut());
        ToggleButton compact = new ToggleButton("Compact lanes");
        compact.setTooltip(new Tooltip("Thin lanes to see hundreds of workers at once"));
        compact.selectedProperty().bindBidirectional(timeline.compactProperty());
        Region spring = new Region();
        HBox.setHgrow(spring, Priority.ALWAYS);
        Label title = new Label("Timeline");
        title.setMinWidth(Region.USE_PREF_SIZE);
        Label hint = new Label("Ctrl+wheel zooms · drag pans · click a name, then Step");
        hint.getStyleClass().add("hint");
        // On two lines beside the buttons where the window is narrow, never cut.
        hint.setWrapText(true);
        hint.setMinWidth(0);
        HBox bar = new HBox(6, title, follow, fit, zoomOut, zoomIn, compact, spring, hint);
        bar.getStyleClass().add("timeline-toolbar");
        bar.setAlignment(Pos.CENTER_LEFT);
        for (Control control : new Control[] {follow, fit, zoomIn, zoomOut, compact}) {
            control.setMinWidth(Region.USE_PREF_SIZE);
        }
        return bar;
    }
}
