package dev.racelab.ui.shell;

import dev.racelab.ui.controls.NumberSpinner;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.Strategy;
import dev.racelab.ui.model.Commands;
import dev.racelab.ui.model.Session;
import javafx.collections.FXCollections;
import javafx.geometry.Pos;
import javafx.geometry.VPos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;
import org.controlsfx.control.SegmentedButton;

import java.util.List;
import java.util.function.IntSupplier;

/**
 * The controls above the timeline: the strategy switch (the broken strategies first, then the
 * fixes), the number of workers and operations, the lab's own switches, Run · Pause · Step · Stop ·
 * Reset, step mode and the speed of delays. Each button names its keyboard shortcut in its tooltip.
 * While an opened recording is shown there is no run to command: Run, Pause, Step and Stop are off,
 * and changing a setting (or Reset) leaves the recording for a fresh live run.
 */
public final class ControlBar extends VBox {

    public static final String STYLE = "control-bar";
    /** A group of controls, set off from the one before it. */
    private static final String GROUP = "control-group";
    private static final List<Double> SPEEDS = List.of(0.25, 0.5, 1.0, 2.0, 4.0, 10.0);

    private final Session session;
    private final SegmentedButton strategies = new SegmentedButton();
    private final Label labTitle = new Label();
    private final Label strategySummary = new Label();
    private final NumberSpinner workers = new NumberSpinner("Workers", "");
    private final NumberSpinner ops = new NumberSpinner("Operations per worker", "");
    private final SwitchControls switches;
    final Button run = button("Run", "run", "Run the lab, or go on after a pause (F5)");
    final Button pause = button("Pause", "pause", "Halt every worker at its next gate (F6)");
    final Button step = button("Step", "step", "Release the worker selected in the gates table or on the timeline (else the first "
            + "halted one) to its next gate (F10 or Page Down; Alt+1 … Alt+9 step worker 1 … 9)");
    final Button stop = button("Stop", "stop", "Stop the run; what it recorded stays (Shift+F5)");
    final Button reset = button("Reset", "reset", "Clear the timeline and prepare a fresh run with the settings shown; "
            + "the last run of each strategy stays one click away under these controls (Ctrl+R)");
    final Button batch = button("Batch…", "batch", "Run these settings many times, the fixes beside them, and "
            + "see how often each fails — or sweep a delay: race probability vs delay (Ctrl+B)");
    final Button explore = button("Explore…", "explore", "Run every interleaving of the workers at their gates on "
            + "the servers, see which fail, and get the simplest failing one (Ctrl+E)");
    private final CheckBox stepMode = new CheckBox("Step mode");
    private final ComboBox<Double> speed = new ComboBox<>(FXCollections.observableList(SPEEDS));
    private boolean syncing;
    private HBox sizing;
    private HBox extras;
    private FlowPane second;

    public ControlBar(Session session, IntSupplier selectedWorker) {
        this.session = session;
        getStyleClass().add(STYLE);
        labTitle.getStyleClass().add("lab-heading");
        strategySummary.getStyleClass().add("strategy-summary");
        strategySummary.setWrapText(true);

        workers.setTooltip(new Tooltip("Number of workers"));
        ops.setTooltip(new Tooltip("Operations per worker"));
        switches = new SwitchControls(session);
        workers.valueProperty().addListener((o, a, b) -> {
            if (!syncing && b != null) {
                session.workersProperty().set(b);
            }
        });
        ops.valueProperty().addListener((o, a, b) -> {
            if (!syncing && b != null) {
                session.opsProperty().set(b);
            }
        });

        run.setOnAction(e -> session.start());
        pause.setOnAction(e -> session.pause());
        step.setOnAction(e -> session.step(selectedWorker.getAsInt()));
        stop.setOnAction(e -> session.stop());
        reset.setOnAction(e -> session.reset());
        stepMode.setTooltip(new Tooltip("Start runs with every worker halting at every gate"));
        stepMode.selectedProperty().bindBidirectional(session.stepModeProperty());
        stepMode.selectedProperty().addListener((o, was, on) -> {
            Run current = session.run();
            if (current == null || syncing) {
                return;
            }
            if (on && current.phase() == RunPhase.RUNNING) {
                session.pause();
            } else if (!on && current.phase() == RunPhase.PAUSED) {
                session.start();
            }
        });
        speed.setConverter(new StringConverter<>() {
            @Override
            public String toString(Double scale) {
                return scale == null ? "" : "delays ×" + (scale == Math.floor(scale) ? String.valueOf(scale.intValue())
                        : String.valueOf(scale));
            }

            @Override
            public Double fromString(String text) {
                return 1.0;
            }
        });
        speed.setValue(1.0);
        speed.setTooltip(new Tooltip("Stretch every delay: ×4 is slow motion for a projector"));
        speed.valueProperty().addListener((o, a, b) -> session.delayScaleProperty().set(b));

        Commands can = session.commands();
        for (Node setting : new Node[] {strategies, workers, ops, switches, batch, explore}) {
            setting.disableProperty().bind(can.canChangeSettings().not());
        }
        run.textProperty().bind(can.runWords());
        run.disableProperty().bind(can.canRun().not());
        pause.disableProperty().bind(can.canPause().not());
        step.disableProperty().bind(can.canStep().not());
        stop.disableProperty().bind(can.canStop().not());
        reset.disableProperty().bind(can.canReset().not());
        session.labProperty().addListener((o, a, lab) -> showLab(lab));
        session.strategyProperty().addListener((o, a, s) -> showStrategy(s));
        session.workersProperty().addListener((o, a, n) -> show(workers, n.intValue()));
        session.opsProperty().addListener((o, a, n) -> show(ops, n.intValue()));

        // The strategies go under the lab's title when both do not fit (large text, a small screen).
        FlowPane first = new FlowPane(10, 6, labTitle, strategies);
        first.setRowValignment(VPos.CENTER);
        labTitle.setMinWidth(Region.USE_PREF_SIZE);
        // Groups that wrap as a whole when the window is narrow (a laptop, presenter-size text).
        switches.getStyleClass().add(GROUP);
        sizing = group(new Label("Workers"), workers, new Label("Ops each"), ops);
        extras = group(batch, explore, stepMode, speed);
        // The lab's switches last: a lab with many takes a second line for them alone, not a line each
        // for the sizes, the switches and the run buttons.
        second = new FlowPane(0, 6, sizing, group(run, pause, step, stop, reset), extras, switches);
        second.setRowValignment(VPos.CENTER);
        second.getChildren().get(0).getStyleClass().add("first");
        getChildren().addAll(first, strategySummary, second);
    }

    /**
     * Presenter mode: only what a lesson needs — the lab, its strategies and what they do, Run,
     * Pause, Step, Stop, Reset and the delays' speed (slow motion for a room); the workers, the
     * switches, step mode and Batch come back when it ends.
     */
    public void lessonOnly(boolean on) {
        if (on) {
            second.getChildren().removeAll(sizing, switches);
        } else if (!second.getChildren().contains(sizing)) {
            second.getChildren().add(0, sizing);
            second.getChildren().add(switches);
        }
        for (Node node : new Node[] {batch, explore, stepMode}) {
            node.setVisible(!on);
            node.setManaged(!on);
        }
    }

    private static HBox group(Node... nodes) {
        HBox group = new HBox(8, nodes);
        group.setAlignment(Pos.CENTER_LEFT);
        group.getStyleClass().add(GROUP);
        return group;
    }

    private static Button button(String text, String style, String tip) {
        Button button = new Button(text);
        button.getStyleClass().addAll("run-button", style);
        button.setTooltip(new Tooltip(tip));
        button.setId(style + "-button");
        return button;
    }

    private void show(NumberSpinner spinner, int value) {
        syncing = true;
        try {
            spinner.show(value);
        } finally {
            syncing = false;
        }
    }

    private void showLab(Lab lab) {
        syncing = true;
        try {
            labTitle.setText(lab.title());
            strategies.getButtons().clear();
            for (Strategy s : lab.strategies()) {
                ToggleButton button = new ToggleButton(s.broken() ? s.title() + "  ⚠" : s.title());
                button.setUserData(s);
                button.setId("strategy-" + s.id());
                button.getStyleClass().add(s.broken() ? "broken" : "fixed");
                button.setTooltip(new Tooltip(s.id() + (s.broken() ? " (races): " : ": ") + s.summary()));
                button.setOnAction(e -> {
                    if (!button.isSelected()) {
                        button.setSelected(true);
                    }
                    session.strategyProperty().set(s);
                });
                strategies.getButtons().add(button);
            }
            workers.setRange(lab.minWorkers(), lab.maxWorkers(), session.workersProperty().get());
            ops.setRange(1, 100_000, session.opsProperty().get());
            switches.showLab(lab);
            showStrategy(session.strategyProperty().get());
        } finally {
            syncing = false;
        }
    }

    private void showStrategy(Strategy strategy) {
        if (strategy == null) {
            return;
        }
        for (ToggleButton button : strategies.getButtons()) {
            button.setSelected(button.getUserData() == strategy);
        }
        strategySummary.setText((strategy.broken() ? "⚠ races: " : "fix: ") + strategy.summary());
    }
}
