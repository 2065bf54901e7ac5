package dev.racelab.ui.explore;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Backends;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.explore.Exploration;
import dev.racelab.engine.explore.Explorer;
import dev.racelab.engine.explore.Found;
import dev.racelab.engine.explore.Method;
import dev.racelab.engine.lab.Lab;
import dev.racelab.tasks.Background;
import dev.racelab.ui.controls.NumberSpinner;
import dev.racelab.ui.model.Session;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Explore every interleaving of the lab shown, on the servers: the schedules as they run, a cell
 * each coloured by verdict ({@link ScheduleGrid}), the space and how much of it ran, schedules a
 * second; a click plays a schedule on the main window's timeline; the shrunk failure one click
 * away, beside its nearest passing schedule with where they part marked ({@link ScheduleDiff}).
 * An exploration runs on a thread of its own and can be stopped, keeping what it found.
 * Owned by the FX thread.
 */
public final class ExploreWindow {

    private final Stage stage = new Stage();
    private final Session session;
    private final Backends backends;
    private final Lab lab;
    /** The settings shown when the window opened: what it explores, whatever the main window shows later. */
    private final RunSpec base;
    private final Strategy strategy;
    private final ComboBox<Method> method = new ComboBox<>(FXCollections.observableArrayList(Method.values()));
    private final NumberSpinner preemptions = new NumberSpinner("Preemptions", "");
    private final NumberSpinner workers = new NumberSpinner("Workers", "");
    private final NumberSpinner ops = new NumberSpinner("Operations each", "");
    private final NumberSpinner seconds = new NumberSpinner("Time", "s");
    private final Button start = new Button("Explore");
    private final Button stop = new Button("Stop");
    private final Button playShrunk = new Button("Play the shrunk failure");
    private final Label status = new Label();
    private final Label shrunkWords = new Label();
    private final ScheduleGrid grid;
    private final ScheduleDiff diff = new ScheduleDiff();
    private final ReadOnlyObjectWrapper<Exploration> result = new ReadOnlyObjectWrapper<>(this, "result");
    private Explorer explorer;
    /** What the last exploration ran each schedule with: a schedule played runs with it. */
    private RunSpec explored;
    private Exploration shown;
    private long startedAt;
    private int failing;

    public ExploreWindow(Window owner, Session session, Backends backends) {
        this.session = session;
        this.backends = backends;
        this.lab = session.lab();
        this.base = session.settings();
        Strategy chosen = session.strategyProperty().get();
        this.strategy = lab.schedulable(chosen) ? chosen
                : lab.strategies().stream().filter(lab::schedulable).findFirst().orElse(null);
        this.grid = new ScheduleGrid(this::play, lab::workerName);
        stage.initOwner(owner);
        stage.setTitle("Explore every interleaving — " + lab.title());

        method.setValue(Method.BOUNDED);
        method.setId("explore-method");
        method.setConverter(new javafx.util.StringConverter<>() {
            @Override
            public String toString(Method m) {
                return m == null ? "" : switch (m) {
                    case ALL -> "every interleaving";
                    case BOUNDED -> "at most K preemptions";
                    case PCT -> "PCT (sampled)";
                    case RANDOM -> "random (sampled)";
                };
            }

            @Override
            public Method fromString(String text) {
                return Method.BOUNDED;
            }
        });
        preemptions.setRange(0, 8, 2);
        preemptions.disableProperty().bind(method.valueProperty().isNotEqualTo(Method.BOUNDED));
        workers.setRange(lab.minWorkers(), Math.min(lab.maxWorkers(), 8), lab.exploredWorkers());
        ops.setRange(1, 10, lab.exploredOps());
        seconds.setRange(1, 3_600, 60);
        start.setDefaultButton(true);
        start.setId("explore-start");
        start.setOnAction(e -> start());
        stop.setId("explore-stop");
        stop.setDisable(true);
        stop.setOnAction(e -> stop());
        playShrunk.setId("explore-play-shrunk");
        playShrunk.setDisable(true);
        playShrunk.setOnAction(e -> {
            if (shown != null && shown.shrunk() != null) {
                play(shown.shrunk().found());
            }
        });
        status.setId("explore-status");
        status.getStyleClass().add("bench-status");
        shrunkWords.setId("explore-shrunk");
        shrunkWords.setWrapText(true);

        Label heading = new Label(strategy == null ? lab.title() + " cannot be explored yet"
                : "Every interleaving of " + strategy.title().toLowerCase(Locale.ROOT) + ", on the servers");
        heading.getStyleClass().add("lab-heading");
        Label story = new Label("Each worker halts at each gate; one at a time goes on, in every order the method "
                + "allows. Delays are dropped: the order alone decides. Red: the schedule failed; green: it did not. "
                + "Click a cell to play that schedule on the timeline.");
        story.setWrapText(true);
        story.getStyleClass().add("bench-story");
        HBox sizes = row(new Label("Workers"), workers, new Label("Operations each"), ops, new Label("Method"), method,
                new Label("Preemptions"), preemptions, new Label("Stop after"), seconds, new Label("s"));
        HBox buttons = row(start, stop, playShrunk, legend(), status);
        VBox top = new VBox(10, heading, story, sizes, buttons);
        top.setPadding(new Insets(12));
        top.getStyleClass().add("control-bar");
        ScrollPane cells = new ScrollPane(grid);
        cells.setFitToWidth(true);
        grid.setPadding(new Insets(10));
        VBox bottom = new VBox(8, shrunkWords, diff);
        bottom.setPadding(new Insets(10, 12, 12, 12));
        BorderPane root = new BorderPane(cells, top, null, bottom, null);
        root.getStyleClass().add("main-view");
        Scene scene = new Scene(root, 1100, 720);
        scene.getStylesheets().addAll(owner.getScene().getStylesheets());
        scene.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ESCAPE && explorer != null) {
                stop();
            }
        });
        stage.setScene(scene);
        stage.setOnHidden(e -> stop());
        if (strategy == null) {
            start.setDisable(true);
            String why = lab.unexplorable().orElse("a schedule cannot order its workers");
            status.setText(Character.toUpperCase(why.charAt(0)) + why.substring(1) + ".");
        } else {
            status.setText(strategy == chosen ? "Choose a method, and press Explore."
                    : chosen.title() + " orders its workers itself: exploring " + strategy.title() + ".");
        }
    }

    /** What the colours mean. */
    private static HBox legend() {
        Label failed = new Label();
        failed.getStyleClass().add("schedule-cell");
        failed.pseudoClassStateChanged(javafx.css.PseudoClass.getPseudoClass("failed"), true);
        Label passed = new Label();
        passed.getStyleClass().add("schedule-cell");
        passed.pseudoClassStateChanged(javafx.css.PseudoClass.getPseudoClass("safe"), true);
        return row(failed, new Label("failed"), passed, new Label("passed"));
    }

    private static HBox row(javafx.scene.Node... nodes) {
        HBox row = new HBox(8, nodes);
        row.setAlignment(Pos.CENTER_LEFT);
        return row;
    }

    public void show() {
        stage.show();
        stage.toFront();
    }

    public Stage stage() {
        return stage;
    }

    /** What the last exploration found, once it ended (stopped or not); null before. */
    public ReadOnlyObjectProperty<Exploration> resultProperty() {
        return result.getReadOnlyProperty();
    }

    /** Shows these choices, as the user would make them (the tests and the screenshot tour come here). */
    public void choose(Method how, int bound, int workerCount, int opsEach) {
        method.setValue(how);
        preemptions.show(bound);
        workers.show(workerCount);
        ops.show(opsEach);
    }

    /** Starts exploring with the choices shown; the tests come here as the button does. */
    public void start() {
        if (explorer != null || strategy == null) {
            return;
        }
        preemptions.commit();
        workers.commit();
        ops.commit();
        seconds.commit();
        RunSpec spec = base.withStrategy(strategy.id()).withWorkers(workers.getValue())
                .withOps(ops.getValue());
        Explorer next = new Explorer(lab, spec, session.clock(),
                run -> run.record().backend(backends.describe(lab.services())));
        Explorer.Settings settings = new Explorer.Settings(method.getValue(), preemptions.getValue(), 3, 1,
                1_000_000, Duration.ofSeconds(seconds.getValue()), Duration.ofSeconds(seconds.getValue()));
        explorer = next;
        explored = next.spec();
        shown = null;
        failing = 0;
        grid.clear();
        diff.getChildren().clear();
        shrunkWords.setText("");
        start.setDisable(true);
        stop.setDisable(false);
        playShrunk.setDisable(true);
        startedAt = System.nanoTime();
        status.setText("starting the servers…");
        Background.run("explore", () -> explore(next, settings), e -> Platform.runLater(() -> ended(next, null,
                "the exploration failed: " + Background.said(e))));
    }

    private void explore(Explorer next, Explorer.Settings settings) throws InterruptedException {
        boolean keeping = lab.services().contains(Service.POSTGRES);
        try {
            for (Service service : lab.services()) {
                backends.ensure(service);
            }
            if (keeping) {
                backends.postgres().keepSessions(true);
            }
        } catch (BackendException e) {
            Platform.runLater(() -> ended(next, null, e.getMessage()));
            return;
        }
        try {
            Exploration found = next.explore(settings, new Explorer.Listener() {
                @Override
                public void ran(Found schedule, RunRecord record) {
                    Platform.runLater(() -> added(next, schedule));
                }

                @Override
                public void shrinking(Found failure) {
                    Platform.runLater(() -> {
                        if (explorer == next) {
                            status.setText(status.getText() + " · shrinking the simplest failure…");
                        }
                    });
                }
            });
            Platform.runLater(() -> ended(next, found, null));
        } finally {
            if (keeping) {
                try {
                    backends.postgres().keepSessions(false);
                } catch (BackendException e) {
                    // The server is gone: nothing kept is left to close.
                }
            }
        }
    }

    /** Stops the exploration running now: the schedule in progress stops, and what ran stays. */
    public void stop() {
        if (explorer != null) {
            explorer.cancel();
            status.setText("stopping…");
        }
    }

    private void added(Explorer from, Found schedule) {
        if (explorer != from) {
            return;
        }
        grid.add(schedule);
        if (schedule.verdict() != dev.racelab.engine.Verdict.SAFE) {
            failing++;
        }
        double elapsed = (System.nanoTime() - startedAt) / 1e9;
        int ran = grid.schedules().size();
        status.setText(String.format(Locale.ROOT, "%d schedules · %d failing · %.0f a second · space: counted as "
                + "it runs", ran, failing, ran / Math.max(elapsed, 1e-3)));
    }

    private void ended(Explorer from, Exploration found, String problem) {
        if (explorer != from) {
            return;
        }
        explorer = null;
        start.setDisable(false);
        stop.setDisable(true);
        if (found == null) {
            status.setText(problem);
            return;
        }
        shown = found;
        status.setText(summary(found));
        Exploration.Shrunk shrunk = found.shrunk();
        if (shrunk != null) {
            Found s = shrunk.found();
            shrunkWords.setText("Shrunk: " + s.verdict() + " " + s.headline() + " with " + s.preemptions()
                    + (s.preemptions() == 1 ? " preemption" : " preemptions") + (shrunk.fewest()
                    ? " — no schedule with fewer fails so" : " — fewer not ruled out in the time given")
                    + (shrunk.confirmed() ? "" : " (followed again, it went otherwise)") + ". Where it parts from "
                    + "the nearest schedule that passed is marked.");
            diff.show(s, grid.schedules());
            grid.mark(s.index());
            playShrunk.setDisable(false);
        }
        result.set(found);
    }

    private static String summary(Exploration found) {
        String space = found.exhausted() ? "the whole space" + (found.bound() == null ? "" : " with at most "
                + found.bound() + (found.bound() == 1 ? " preemption" : " preemptions")) + ": " + found.space()
                + " schedules"
                : found.schedules() + " schedules (stopped by " + (found.stoppedBy() == null ? "?" : found.stoppedBy())
                + ", not the whole space)";
        String failed = found.failingCount() == 0 ? (found.exhausted() ? "no failing schedule among them"
                : "none failed") : found.failingCount() + " failing";
        return String.format(Locale.ROOT, "%s · %s · %.0f a second%s", space, failed, found.schedulesPerSecond(),
                found.serverFailure() == null ? "" : " · " + found.serverFailure());
    }

    /** Plays {@code schedule} on the main window's timeline, passage for passage. */
    private void play(Found schedule) {
        grid.mark(schedule.index());
        session.play(lab, explored.withSchedule(schedule.schedule()));
    }

    /** The schedules shown, in order (the tests read them). */
    public List<Found> schedules() {
        return List.copyOf(grid.schedules());
    }
}
