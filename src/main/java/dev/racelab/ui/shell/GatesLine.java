package dev.racelab.ui.shell;

import dev.racelab.engine.lab.Lab;
import dev.racelab.ui.model.Session;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;

/** The gates' delays as one line under the legend: presenter mode's stand-in for the gates table. */
final class GatesLine extends Label {

    private final Session session;

    GatesLine(Session session) {
        this.session = session;
        getStyleClass().add("gates-line");
        setMinHeight(Region.USE_PREF_SIZE);
        session.gatesProperty().addListener((o, a, plan) -> show());
        session.labProperty().addListener((o, a, lab) -> show());
        shown(false);
    }

    void shown(boolean on) {
        setVisible(on);
        setManaged(on);
        show();
    }

    private void show() {
        Lab lab = session.lab();
        if (lab == null) {
            return;
        }
        String plan = session.gatesProperty().get().describe(lab::workerName);
        setText(plan.isEmpty() ? "Delays: none — the race, if any, comes from the timing alone"
                : "Delays: " + plan.replace(" ", "  ·  "));
    }
}
