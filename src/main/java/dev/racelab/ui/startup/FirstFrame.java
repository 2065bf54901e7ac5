package dev.racelab.ui.startup;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Service;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import dev.racelab.ui.shell.MainView;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.SplitPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The window's first frame, shown while the window proper is built: the labs with their stories,
 * the chosen lab's heading, the place of the timeline, and the servers' progress in the status
 * bar — the window's own layout in plain labels, drawn in a fraction of the time.
 *
 * <p>Why: the window proper (a table per gate and worker, list cells, the timeline's canvas, the
 * panels) takes its CSS and layout pass about a second on a small machine, and nothing would be on
 * screen meanwhile. This frame needs a few dozen labels; once it is on screen the window proper is
 * built and takes its place in the same scene, and the servers start beside it.
 */
public final class FirstFrame extends BorderPane {

    public static final String STYLE = "first-frame";

    /**
     * @param labs    every lab, in the window's order
     * @param chosen  the lab the window will open on
     * @param startup the servers' progress, for the status bar
     */
    public FirstFrame(List<Lab> labs, Lab chosen, ServerStartup startup) {
        getStyleClass().addAll("main-view", STYLE);

        // The window's menus, its controls' three rows, and its three columns at the window's own
        // proportions, so that the window proper comes in where this frame showed it.
        MenuBar menus = new MenuBar(new Menu("File"), new Menu("View"), new Menu("Help"));
        Label heading = new Label(chosen.title());
        heading.getStyleClass().add("lab-heading");
        Label story = new Label(chosen.story());
        story.getStyleClass().add("strategy-summary");
        Label controls = new Label("Getting the controls ready…");
        controls.getStyleClass().addAll("hint", "first-frame-controls");
        VBox bar = new VBox(heading, story, controls);
        bar.getStyleClass().add("control-bar");
        setTop(new VBox(menus, bar));

        VBox column = new VBox(new Label("Labs"));
        column.getStyleClass().add("lab-column");
        for (Lab lab : labs) {
            column.getChildren().add(entry(lab, lab == chosen));
        }
        HBox toolbar = new HBox(new Label("Timeline"));
        toolbar.getStyleClass().add("timeline-toolbar");
        VBox timeline = new VBox(toolbar);
        timeline.getStyleClass().add("first-frame-timeline");
        Region state = new Region();
        state.getStyleClass().add("first-frame-state");
        SplitPane body = new SplitPane(column, timeline, state);
        body.setDividerPositions(MainView.LAB_COLUMN, MainView.STATE_COLUMN);
        setCenter(body);

        Label servers = new Label();
        servers.textProperty().bind(Bindings.concat(startup.statusProperty(Service.POSTGRES), "   ·   ",
                startup.statusProperty(Service.REDIS)));
        HBox status = new HBox(servers);
        status.setAlignment(Pos.CENTER_LEFT);
        status.getStyleClass().add("first-frame-status");
        setBottom(status);
    }

    /** One lab as the lab list shows it: title, story, id and servers. */
    private static VBox entry(Lab lab, boolean chosen) {
        Label title = new Label(lab.title());
        title.getStyleClass().add("lab-title");
        title.setWrapText(true);
        Label story = new Label(lab.story());
        story.getStyleClass().add("lab-story");
        story.setWrapText(true);
        Label servers = new Label(lab.id() + " · " + lab.services().stream().sorted().map(Service::displayName)
                .collect(Collectors.joining(" + ")));
        servers.getStyleClass().add("lab-servers");
        servers.setWrapText(true);
        VBox entry = new VBox(2, title, story, servers);
        entry.getStyleClass().add("first-frame-lab");
        if (chosen) {
            entry.getStyleClass().add("chosen");
        }
        return entry;
    }
}
