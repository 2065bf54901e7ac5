package dev.racelab.ui.gates;

import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.ui.model.Session;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

/**
 * The line above the gates table: what a cell takes, said once for all cells, and the button that
 * puts the gates back to the lab's presets ({@link Lab#presetGates()}).
 *
 * <p>The presets have their own button rather than riding on Reset: Reset prepares a fresh run with
 * the settings on screen, and a teacher who tuned a delay and presses Reset to run it again must
 * not lose it. Choosing the lab again also starts from its presets.
 */
public final class GatesHeader extends HBox {

    public static final String STYLE = "gates-header";

    public GatesHeader(Session session) {
        getStyleClass().add(STYLE);
        setAlignment(Pos.CENTER_LEFT);
        Label title = new Label("Gates");
        title.getStyleClass().add("gates-title");
        title.setMinWidth(Region.USE_PREF_SIZE);
        Label how = new Label("A delay in ms (5) or a range (2-20); the box halts there (a breakpoint); ⚡ arms a "
                + "fault. A worker's row overrides “all workers”.");
        how.getStyleClass().add("hint");
        // On two lines where the window is narrow, never cut.
        how.setWrapText(true);
        how.setMinWidth(0);
        how.setMinHeight(Region.USE_PREF_SIZE);
        HBox.setHgrow(how, Priority.ALWAYS);
        Button presets = new Button();
        presets.setId("gate-presets-button");
        presets.setMinWidth(Region.USE_PREF_SIZE);
        presets.setOnAction(e -> session.usePresetGates());
        presets.textProperty().bind(Bindings.createStringBinding(() -> {
            Lab lab = session.lab();
            return lab == null || lab.presetGates().equals(GatePlan.NONE) ? "Clear all gates" : "Lab's preset gates";
        }, session.labProperty()));
        presets.disableProperty().bind(Bindings.createBooleanBinding(() -> {
            Lab lab = session.lab();
            return lab == null || lab.presetGates().equals(session.gatesProperty().get());
        }, session.labProperty(), session.gatesProperty()));
        Tooltip tip = new Tooltip();
        tip.textProperty().bind(Bindings.createStringBinding(() -> {
            Lab lab = session.lab();
            if (lab == null) {
                return "";
            }
            String preset = lab.presetGates().describe(lab::workerName);
            return preset.isEmpty() ? "Empty every cell: all workers pass every gate freely (this lab has no preset gates)"
                    : "Put the gates back to the delays and faults this lab starts with: " + preset;
        }, session.labProperty()));
        presets.setTooltip(tip);
        getChildren().addAll(title, how, presets);
    }
}
