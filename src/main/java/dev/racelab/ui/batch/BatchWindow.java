package dev.racelab.ui.batch;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Batch;
import dev.racelab.engine.Gate;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Sweep;
import dev.racelab.engine.view.Theme;
import dev.racelab.export.BatchChart;
import dev.racelab.export.ImageSketch;
import dev.racelab.files.OutputFile;
import dev.racelab.ui.files.OutputQuestion;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.controls.NumberSpinner;
import dev.racelab.tasks.Background;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressBar;
import javafx.scene.image.ImageView;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.Window;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Batch outcomes: the settings shown in the main window, run many times — the broken strategy
 * and its fixes side by side — with a progress bar and a Cancel; a histogram of the lab's key
 * figure over the runs, or, sweeping one gate's delay, how often each strategy failed at each
 * delay. The chart is drawn by {@link BatchChart}, which also writes it as PNG, SVG and CSV.
 *
 * <p>The batch runs on its own thread ({@code batch}); the window follows it once a frame from
 * {@link Batch#snapshot}. Owned by the FX thread.
 */
public final class BatchWindow {

    private final Stage stage = new Stage();
    private final Session session;
    private final Backends backends;
    private final Lab lab;
    private final NumberSpinner runs = new NumberSpinner("Runs", "");
    private final List<CheckBox> strategies = new ArrayList<>();
    private final CheckBox sweep = new CheckBox("Sweep the delay at");
    private final ComboBox<String> gate = new ComboBox<>();
    private final NumberSpinner from = new NumberSpinner("from, ms", "");
    private final NumberSpinner to = new NumberSpinner("to, ms", "");
    private final NumberSpinner step = new NumberSpinner("step, ms", "");
    private final Button start = new Button("Run batch");
    private final Button cancel = new Button("Cancel");
    private final MenuButton export = new MenuButton("Export chart");
    private final ProgressBar progress = new ProgressBar(0);
    private final Label status = new Label("Choose how many runs, and press Run batch.");
    private final ImageView chart = new ImageView();
    private final Pane chartPane = new Pane(chart);
    private final ReadOnlyObjectWrapper<Batch.Result> result = new ReadOnlyObjectWrapper<>(this, "result");
    private final AnimationTimer follow;
    private Batch batch;
    private long started;
    private String title = "";
    private Batch.Result shown;

    public BatchWindow(Window owner, Session session, Backends backends) {
        this.session = session;
        this.backends = backends;
        this.lab = session.lab();
        stage.initOwner(owner);
        stage.setTitle("Batch of runs — " + lab.title());

        runs.setRange(1, 1000, 20);
        FlowPane choices = new FlowPane(10, 6);
        Strategy shown = session.strategyProperty().get();
        for (Strategy strategy : lab.strategies()) {
            CheckBox box = new CheckBox(strategy.title() + (strategy.broken() ? " ⚠" : ""));
            box.setUserData(strategy.id());
            box.setSelected(strategy == shown || !strategy.broken());
            box.setId("batch-strategy-" + strategy.id());
            strategies.add(box);
            choices.getChildren().add(box);
        }
        for (Gate g : lab.gates()) {
            if (!g.isFault()) {
                gate.getItems().add(g.id());
            }
        }
        String preset = lab.gates().stream().filter(g -> !g.isFault())
                .filter(g -> session.settings().gates().ruleForAll(g.id()).delays()).map(Gate::id).findFirst()
                .orElse(gate.getItems().isEmpty() ? null : gate.getItems().get(0));
        gate.setValue(preset);
        from.setRange(0, 100_000, 0);
        to.setRange(0, 100_000, 20);
        step.setRange(1, 100_000, 5);
        gate.disableProperty().bind(sweep.selectedProperty().not());
        from.disableProperty().bind(sweep.selectedProperty().not());
        to.disableProperty().bind(sweep.selectedProperty().not());
        step.disableProperty().bind(sweep.selectedProperty().not());
        sweep.setDisable(gate.getItems().isEmpty());

        start.setDefaultButton(true);
        start.setId("batch-start");
        start.setOnAction(e -> start());
        cancel.setCancelButton(true);
        cancel.setId("batch-cancel");
        cancel.setDisable(true);
        cancel.setOnAction(e -> cancel());
        MenuItem png = new MenuItem("PNG…");
        png.setOnAction(e -> export("png"));
        MenuItem svg = new MenuItem("SVG…");
        svg.setOnAction(e -> export("svg"));
        MenuItem csv = new MenuItem("CSV…");
        csv.setOnAction(e -> export("csv"));
        export.getItems().addAll(png, svg, csv);
        export.setDisable(true);

        Label heading = new Label("Run the settings shown, " + lab.title().toLowerCase() + ", many times");
        heading.getStyleClass().add("lab-heading");
        HBox count = new HBox(8, new Label("Runs of each strategy"), runs);
        count.setAlignment(Pos.CENTER_LEFT);
        HBox sweeping = new HBox(8, sweep, gate, new Label("from"), from, new Label("to"), to, new Label("step"), step,
                new Label("ms"));
        sweeping.setAlignment(Pos.CENTER_LEFT);
        HBox buttons = new HBox(8, start, cancel, export, progress, status);
        buttons.setAlignment(Pos.CENTER_LEFT);
        progress.setPrefWidth(220);
        VBox top = new VBox(10, heading, count, new Label("Strategies"), choices, sweeping, buttons);
        top.setPadding(new Insets(12));
        top.getStyleClass().add("control-bar");

        chartPane.setMinSize(0, 0);
        chartPane.widthProperty().addListener((o, a, b) -> redraw());
        chartPane.heightProperty().addListener((o, a, b) -> redraw());
        BorderPane root = new BorderPane(chartPane, top, null, null, null);
        root.getStyleClass().add("main-view");
        Scene scene = new Scene(root, 1000, 760);
        scene.getStylesheets().addAll(owner.getScene().getStylesheets());
        scene.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ESCAPE && batch != null) {
                cancel();
            }
        });
        stage.setScene(scene);
        stage.setOnHidden(e -> cancel());
        follow = new AnimationTimer() {
            @Override
            public void handle(long now) {
                if (batch != null) {
                    show(batch.snapshot(), false);
                }
            }
        };
    }

    public void show() {
        stage.show();
        stage.toFront();
    }

    public Stage stage() {
        return stage;
    }

    /** The result of the last batch, once it ended (cancelled or not); null before. */
    public ReadOnlyObjectProperty<Batch.Result> resultProperty() {
        return result.getReadOnlyProperty();
    }

    /**
     * Shows these choices, as the user would make them: {@code runs} of each of {@code chosen}
     * strategies (ids), sweeping {@code swept}'s delays, or none when it is null. A walkthrough's
     * step and the screenshot tour come here.
     */
    public void choose(int count, List<String> chosen, Sweep swept) {
        runs.show(count);
        strategies.forEach(box -> box.setSelected(chosen.contains((String) box.getUserData())));
        sweep.setSelected(swept != null);
        if (swept != null) {
            gate.setValue(swept.gate());
            from.show((int) swept.from());
            to.show((int) swept.to());
            step.show((int) swept.step());
        }
    }

    /** Starts the batch with the choices shown; the tests come here as the button does. */
    public void start() {
        if (batch != null) {
            return;
        }
        List<String> chosen = strategies.stream().filter(CheckBox::isSelected).map(b -> (String) b.getUserData())
                .toList();
        if (chosen.isEmpty()) {
            status.setText("Tick at least one strategy.");
            return;
        }
        Sweep swept = null;
        if (sweep.isSelected()) {
            try {
                swept = new Sweep(gate.getValue(), -1, from.getValue(), to.getValue(), step.getValue());
            } catch (IllegalArgumentException e) {
                status.setText("The sweep: " + e.getMessage() + ".");
                return;
            }
        }
        RunSpec spec = session.settings();
        Batch next = new Batch(lab, spec, chosen, runs.getValue(), swept, session.clock(),
                run -> run.record().backend(backends.describe(lab.services())));
        title = lab.id() + " · " + spec.workers() + " " + lab.workerRole() + "s × " + spec.ops() + " ops · "
                + runs.getValue() + " runs " + (swept == null ? "of each strategy" : "at each delay of "
                + swept.gate() + " (" + swept.from() + "–" + swept.to() + " ms)");
        batch = next;
        started = System.nanoTime();
        start.setDisable(true);
        cancel.setDisable(false);
        export.setDisable(true);
        progress.setProgress(0);
        status.setText("0 of " + next.total() + " runs");
        follow.start();
        Background.run("batch", () -> {
            Batch.Result ended;
            try {
                ended = next.run((done, total, delay, record) -> { });
            } catch (InterruptedException e) {
                ended = next.snapshot();
            }
            Batch.Result last = ended;
            Platform.runLater(() -> finished(next, last));
        }, e -> {
            // A fault of RaceLab's own, an Error included: what ran stays, and the window says so.
            Batch.Result partial = next.snapshot();
            Batch.Result failed = new Batch.Result(partial.points(), partial.runs(), true,
                    "the batch failed: " + Background.said(e));
            Platform.runLater(() -> finished(next, failed));
        });
    }

    /** Cancels the batch running now: the run in progress stops, and what ran stays on the chart. */
    public void cancel() {
        if (batch != null) {
            batch.cancel();
            status.setText("Cancelling…");
        }
    }

    private void finished(Batch ended, Batch.Result last) {
        if (batch != ended) {
            return;
        }
        batch = null;
        follow.stop();
        start.setDisable(false);
        cancel.setDisable(true);
        export.setDisable(last.runs() == 0);
        show(last, true);
        result.set(last);
    }

    private void show(Batch.Result now, boolean ended) {
        int total = ended || batch == null ? Math.max(1, now.runs()) : batch.total();
        progress.setProgress(ended ? 1 : (double) now.runs() / total);
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        status.setText(now.serverFailure() != null ? "Stopped: " + now.serverFailure()
                : now.runs() + " of " + (ended ? now.runs() : total) + " runs · " + seconds + " s"
                + (ended && now.cancelled() ? " · cancelled" : ended ? " · done" : ""));
        shown = now;
        redraw();
    }

    private BatchChart chartOf(Batch.Result result) {
        Set<String> broken = new java.util.HashSet<>();
        lab.strategies().stream().filter(Strategy::broken).forEach(s -> broken.add(s.id()));
        return new BatchChart(result, lab.keyFigure(), title, broken::contains);
    }

    private void redraw() {
        double w = chartPane.getWidth();
        double h = chartPane.getHeight();
        if (shown == null || shown.points().isEmpty() || w < 50 || h < 50) {
            chart.setImage(null);
            return;
        }
        double scale = stage.getOutputScaleX() > 0 ? stage.getOutputScaleX() : 1;
        ImageSketch drawn = chartOf(shown).image(w, h, scale, Theme.LIGHT);
        chart.setImage(toFx(drawn.image()));
        chart.setFitWidth(w);
        chart.setFitHeight(h);
    }

    private static WritableImage toFx(BufferedImage image) {
        int w = image.getWidth();
        int h = image.getHeight();
        int[] pixels = image.getRGB(0, 0, w, h, null, 0, w);
        WritableImage fx = new WritableImage(w, h);
        fx.getPixelWriter().setPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), pixels, 0, w);
        return fx;
    }

    private void export(String ending) {
        Batch.Result last = result.get();
        if (last == null) {
            return;
        }
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Export the chart");
        chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter(ending.toUpperCase(), "*." + ending));
        chooser.setInitialFileName(lab.id() + "-batch." + ending);
        File file = chooser.showSaveDialog(stage);
        if (file != null) {
            exportTo(ending, file.toPath(), true);
        }
    }

    /**
     * Writes the last batch's chart as {@code png}, {@code svg} or {@code csv} to {@code file}, a file
     * there replaced only once the user agreed ({@link OutputQuestion}); one line on failure.
     */
    public void exportTo(String ending, Path file) {
        exportTo(ending, file, false);
    }

    /** @param chosen whether a file chooser handed back exactly {@code file}, having asked about replacing it */
    private void exportTo(String ending, Path file, boolean chosen) {
        Batch.Result last = result.get();
        if (last == null) {
            return;
        }
        BatchChart chart = chartOf(last);
        OutputQuestion.decide(file, chosen, stage, "The chart was not exported", output -> {
            try {
                Path written = output.write(out -> {
                    switch (ending) {
                        case "png" -> chart.png(out, 2, Theme.LIGHT);
                        case "svg" -> chart.svg(out, Theme.LIGHT);
                        default -> out.write(chart.csv().getBytes(StandardCharsets.UTF_8));
                    }
                });
                status.setText("Exported as " + written.getFileName());
            } catch (OutputFile.Failed e) {
                status.setText(e.getMessage());
            }
        });
    }
}
