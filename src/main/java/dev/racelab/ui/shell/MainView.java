package dev.racelab.ui.shell;

import dev.racelab.ui.walkthrough.WalkthroughBar;
import dev.racelab.backend.Backends;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Service;
import dev.racelab.labs.Labs;
import dev.racelab.labs.isolation.IsolationLab;
import dev.racelab.ui.isolation.IsolationBench;
import dev.racelab.ui.Session;
import dev.racelab.ui.Settings;
import dev.racelab.ui.Themes;
import dev.racelab.engine.view.Theme;
import dev.racelab.ui.gates.GatesHeader;
import dev.racelab.ui.gates.GatesTable;
import dev.racelab.ui.recordings.RecordingBar;
import dev.racelab.ui.batch.BatchWindow;
import dev.racelab.ui.exports.ExportFiles;
import dev.racelab.ui.recordings.RecordingFiles;
import dev.racelab.ui.startup.ServerDialog;
import dev.racelab.ui.startup.ServerStartup;
import dev.racelab.ui.state.StateColumn;
import dev.racelab.ui.timeline.TimelineView;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import org.controlsfx.control.StatusBar;

import java.nio.file.Path;
import java.util.List;

/**
 * The window's content: labs on the left, controls on top, the timeline in the middle with the
 * verdict and the gates below it, the lab's state on the right, the servers in the status bar.
 * An opened recording (File ▸ Open, or a file dropped on the window) shows in the same places,
 * with a strip under the controls naming the file.
 *
 * <p>One {@link AnimationTimer} drives everything live: once per frame {@link ShownRun} asks the
 * session what the run did, drains the run's new events into the timeline and the lab's view, and
 * redraws. Worker threads never touch any of this.
 *
 * <p>This class lays the window out and holds its presentation (presenter mode, theme, text size);
 * the parts with a job of their own are composed: {@link WindowMenu}, {@link TimelineToolbar},
 * {@link TimelineLegend}, {@link ShownRun}, {@link WalkthroughSteps}, {@link DroppedFiles}.
 */
public final class MainView extends BorderPane {

    /** Where the labs column ends and the state column begins, as shares of the window's width. */
    public static final double LAB_COLUMN = 0.15;
    public static final double STATE_COLUMN = 0.75;
    /** In presenter mode, without the labs column: the lab's state takes the right third. */
    private static final double PRESENTER_STATE_COLUMN = 0.66;

    private final Session session;
    private final Backends backends;
    private final Settings settings;
    private final ServerStartup startup;
    private final TimelineView timeline = new TimelineView();
    private final StateColumn stateColumn = new StateColumn();
    private final VerdictBanner banner = new VerdictBanner(timeline);
    private final GatesTable gates;
    private final ControlBar controls;
    private final LabList labList;
    private final RecordingFiles recordings;
    private final ExportFiles exports;
    private BatchWindow batchWindow;
    private final VBox labColumn;
    private final SplitPane body;
    private final SplitPane middle;
    private final Region lowerPane;
    /** How the timeline and the gates share the middle column's height. */
    private final MiddleColumn heights;
    private final IsolationBench isolationBench;
    private final List<Node> presenterHidden;
    private final Label gatesLine = new Label();
    private final LastRuns lastRuns;
    private final WalkthroughSteps walkthroughs;
    /** The record shown and what follows it each frame (timeline, lab's view, gates, legend). */
    private final ShownRun shownRun;
    private final WindowMenu menu;
    /** Presenter mode: large, high-contrast, the labs column put away; the text size before it. */
    private boolean presenter;
    private double scaleBeforePresenter = 1.0;
    private final StatusBar statusBar = new StatusBar();
    private final double baseFont = Font.getDefault().getSize();
    private double textScale = 1.0;

    public MainView(Session session, Labs labs, Backends backends, Settings settings, ServerStartup startup) {
        this.session = session;
        this.backends = backends;
        this.settings = settings;
        this.startup = startup;
        getStyleClass().add("main-view");
        gates = new GatesTable(session);
        shownRun = new ShownRun(session, backends, startup, timeline, stateColumn, gates, banner);
        controls = new ControlBar(session, this::workerToStep);
        controls.batch.setOnAction(e -> openBatch());
        banner.onGuide(() -> openWalkthrough(session.lab() == null ? null : session.lab().id()));
        recordings = new RecordingFiles(session, labs, settings, this);
        exports = new ExportFiles(shownRun::record, timeline::shownWindow, labs, settings, this);
        labList = new LabList(labs.all());
        labList.getSelectionModel().selectedItemProperty().addListener((o, a, lab) -> {
            // By id: the isolation lab shown may be bound to another spec than the list's.
            if (lab != null && (session.lab() == null || !lab.id().equals(session.lab().id()))) {
                session.select(lab);
                settings.put(Settings.LAB, lab.id());
            }
        });
        timeline.selectedActorProperty().addListener((o, a, actor) -> shownRun.selectLane(actor.intValue()));

        labColumn = new VBox(new Label("Labs"), labList);
        labColumn.getStyleClass().add("lab-column");
        VBox.setVgrow(labList, Priority.ALWAYS);

        // The verdict sits under the timeline, on the timeline's side of the divider: however many
        // lines it needs come out of the timeline's height, never out of the gates table's rows.
        Region toolbar = TimelineToolbar.of(timeline);
        gatesLine.getStyleClass().add("gates-line");
        gatesLine.setMinHeight(Region.USE_PREF_SIZE);
        session.gatesProperty().addListener((o, a, plan) -> showGatesLine());
        session.labProperty().addListener((o, a, lab) -> showGatesLine());
        VBox timelineBox = new VBox(toolbar, timeline, shownRun.legend(), gatesLine, banner);
        timelineBox.getStyleClass().add("timeline-box");
        VBox.setVgrow(timeline, Priority.ALWAYS);
        timeline.setMinHeight(0);
        VBox gatesPane = new VBox(new GatesHeader(session), gates);
        VBox.setVgrow(gates, Priority.ALWAYS);
        // The isolation lab's spec, permutations and grid sit beside its gates (shown for that lab only).
        isolationBench = new IsolationBench(session, labs.find(IsolationLab.ID).map(IsolationLab.class::cast)
                .orElseThrow(), backends);
        HBox lower = new HBox(gatesPane, isolationBench);
        HBox.setHgrow(gatesPane, Priority.ALWAYS);
        HBox.setHgrow(isolationBench, Priority.ALWAYS);
        // The isolation lab has one gate: its gates take a third, the bench the rest.
        gatesPane.maxWidthProperty().bind(Bindings.when(isolationBench.visibleProperty())
                .then(lower.widthProperty().multiply(0.34)).otherwise(Double.MAX_VALUE));
        lower.getStyleClass().add("lower");
        lowerPane = lower;
        middle = new SplitPane(timelineBox, lower);
        middle.setOrientation(Orientation.VERTICAL);
        middle.setDividerPositions(0.76);
        heights = new MiddleColumn(middle, timelineBox, timeline, gatesPane, gates, lower, session, () -> presenter);
        middle.heightProperty().addListener((o, a, b) -> heights.fit());
        banner.heightProperty().addListener((o, a, b) -> Platform.runLater(heights::fit));
        session.workersProperty().addListener((o, a, b) -> Platform.runLater(heights::fit));

        body = new SplitPane(labColumn, middle, stateColumn);
        body.setDividerPositions(LAB_COLUMN, STATE_COLUMN);
        SplitPane.setResizableWithParent(labColumn, false);
        lastRuns = new LastRuns(session);
        walkthroughs = new WalkthroughSteps(this, labs, session, banner, stateColumn, timeline, lastRuns,
                () -> presenter ? gatesLine : lowerPane);
        menu = new WindowMenu(this, session, controls, walkthroughs);
        SplitPane.setResizableWithParent(stateColumn, false);

        setTop(new VBox(menu, controls, walkthroughs.bar(), lastRuns, new RecordingBar(session, recordings)));
        setCenter(body);
        setBottom(statusBar);
        statusBar.textProperty().bind(Bindings.concat(startup.statusProperty(Service.POSTGRES), "   ·   ",
                startup.statusProperty(Service.REDIS)));
        statusBar.progressProperty().bind(Bindings.when(startup.busyProperty(Service.POSTGRES)
                .or(startup.busyProperty(Service.REDIS))).then(-1.0).otherwise(0.0));
        Button servers = new Button("Servers…");
        servers.setOnAction(e -> askForServer(Service.POSTGRES, null));
        Label saved = new Label();
        saved.getStyleClass().add("save-note");
        saved.textProperty().bind(Bindings.createStringBinding(() -> exports.exportedProperty().get() != null
                        ? "Exported as " + exports.exportedProperty().get().getFileName()
                        : recordings.savedProperty().get() == null ? ""
                        : "Saved as " + recordings.savedProperty().get().getFileName(),
                recordings.savedProperty(), exports.exportedProperty()));
        statusBar.getRightItems().addAll(saved, servers);
        DroppedFiles.accept(this, recordings);
        // What presenter mode puts away: a lesson needs the timeline, the verdict, the lab's state,
        // and Run, Step, Reset; the delays read as one line under the legend instead of a table.
        presenterHidden = List.of(toolbar, statusBar);
        showPresenterLine(false);

        sceneProperty().addListener((o, was, scene) -> {
            if (scene != null) {
                scene.heightProperty().addListener((h, before, after) -> {
                    if (presenter) {
                        applyTextScale(presenterScale());
                    }
                });
            }
        });
        session.recordProperty().addListener((o, a, record) -> shownRun.showRecord(record));
        session.labProperty().addListener((o, a, lab) -> {
            // Once the gates table has its columns and rows laid out.
            Platform.runLater(heights::fit);
            Lab listed = labList.getSelectionModel().getSelectedItem();
            if (lab != null && (listed == null || !listed.id().equals(lab.id()))) {
                labList.getItems().stream().filter(l -> l.id().equals(lab.id())).findFirst()
                        .ifPresent(l -> labList.getSelectionModel().select(l));
            }
        });
        session.outcomeProperty().addListener((o, a, outcome) -> shownRun.showOutcome(outcome));
        shownRun.whenEnded(walkthroughs::showFirstMark);
        session.stateProperty().addListener((o, a, phase) -> walkthroughs.runStateChanged(phase));
        session.stateProperty().addListener((o, a, phase) -> shownRun.noteServers(phase));
        // Running, the run's server lanes are on the timeline: it may need more of the height.
        session.stateProperty().addListener((o, a, phase) -> Platform.runLater(heights::fit));
        new AnimationTimer() {
            @Override
            public void handle(long now) {
                shownRun.frame(now);
            }
        }.start();
        settings.get(Settings.TEXT_SCALE).ifPresent(scale -> {
            try {
                setTextScale(Double.parseDouble(scale));
            } catch (NumberFormatException ignored) {
                // A hand-edited file: keep the system size.
            }
        });
    }

    /**
     * Opens the batch window for the settings shown (a new one each time: it runs what was shown
     * when it opened); the tests reach it through {@link #batchWindow()}.
     */
    public BatchWindow openBatch() {
        if (session.lab() == null) {
            return null;
        }
        batchWindow = new BatchWindow(getScene().getWindow(), session, backends);
        batchWindow.show();
        return batchWindow;
    }

    /** The batch window opened last, or null. */
    public BatchWindow batchWindow() {
        return batchWindow;
    }

    /** Opens the walkthrough of lab {@code id}, or tells there is none. */
    public void openWalkthrough(String id) {
        walkthroughs.open(id);
    }

    /** Opens a walkthrough from a file; a broken one is named in one message, and nothing changes. */
    public void openWalkthrough(Path file) {
        walkthroughs.open(file);
    }

    public WalkthroughBar walkthroughBar() {
        return walkthroughs.bar();
    }

    /** Selects the lab with {@code id}, or the first. */
    public void selectLab(String id) {
        Lab lab = labList.getItems().stream().filter(l -> l.id().equals(id)).findFirst()
                .orElse(labList.getItems().get(0));
        labList.getSelectionModel().select(lab);
    }

    /** Installs the keyboard shortcuts on the window's scene: they act wherever the focus is ({@link WindowKeys}). */
    public void installShortcuts(Scene scene) {
        new WindowKeys(controls, walkthroughs.bar(), session::step, new WindowKeys.Commands() {
            @Override
            public void openWalkthrough() {
                MainView.this.openWalkthrough(session.lab() == null ? null : session.lab().id());
            }

            @Override
            public void closeWalkthrough() {
                walkthroughs.close();
            }

            @Override
            public void walkMarks(int direction) {
                banner.step(direction);
            }

            @Override
            public boolean presenting() {
                return presenter;
            }

            @Override
            public void blank() {
                MainView.this.blank();
            }
        }).install(scene);
    }

    /** The worker Step releases: the one selected in the gates table or on the timeline, else -1. */
    private int workerToStep() {
        return gates.selectedWorker();
    }

    /**
     * Presenter mode, for a projector at the back of a room: text at least 1.6 times its size, the
     * theme's high-contrast form, the labs column put away (a lesson is one lab at a time), and B
     * blanking the screen. Off puts back the size and the column as they were.
     */
    public void presenterMode(boolean on) {
        if (on == presenter) {
            return;
        }
        presenter = on;
        menu.presenterItem().setSelected(on);
        if (on) {
            scaleBeforePresenter = textScale;
            applyTextScale(presenterScale());
            body.getItems().remove(labColumn);
            middle.getItems().remove(lowerPane);
            body.setDividerPositions(PRESENTER_STATE_COLUMN);
            getStyleClass().add("presenter");
        } else {
            applyTextScale(scaleBeforePresenter);
            body.getItems().add(0, labColumn);
            middle.getItems().add(lowerPane);
            // Once the items are laid out again: set now, the positions are lost to the new layout.
            javafx.application.Platform.runLater(() -> {
                heights.fit();
                body.setDividerPositions(LAB_COLUMN, STATE_COLUMN);
            });
            getStyleClass().remove("presenter");
        }
        presenterHidden.forEach(node -> {
            node.setVisible(!on);
            node.setManaged(!on);
        });
        controls.lessonOnly(on);
        showPresenterLine(on);
        applyTheme();
    }

    public boolean presenterMode() {
        return presenter;
    }

    /**
     * Presenter mode's text size: 1.6 times the system's on a 1080-line screen, and the same share
     * of the screen's height on any other (what reads from the back of a room is text that is a
     * share of the projected picture), never smaller than the system's.
     */
    private double presenterScale() {
        double height = getScene() == null ? 1080 : getScene().getHeight();
        return Math.max(Math.max(1.0, scaleBeforePresenter), 1.6 * height / 1080);
    }

    /** The gates as one line, in place of their table in presenter mode. */
    private void showPresenterLine(boolean on) {
        gatesLine.setVisible(on);
        gatesLine.setManaged(on);
        showGatesLine();
    }

    private void showGatesLine() {
        Lab lab = session.lab();
        if (lab == null) {
            return;
        }
        String plan = session.gatesProperty().get().describe(lab::workerName);
        gatesLine.setText(plan.isEmpty() ? "Delays: none — the race, if any, comes from the timing alone"
                : "Delays: " + plan.replace(" ", "  ·  "));
    }

    /** Chooses the dark theme or the light one, kept for the next start. */
    public void darkTheme(boolean on) {
        menu.darkItem().setSelected(on);
        settings.put(Settings.THEME, on ? "dark" : "light");
        applyTheme();
    }

    /** The theme chosen (light or dark), high-contrast in presenter mode, on the scene and every canvas. */
    private void applyTheme() {
        Theme theme = Theme.named(settings.get(Settings.THEME).orElse("light"));
        if (getScene() == null) {
            return;
        }
        Themes.apply(getScene(), presenter ? theme.highContrast() : theme);
        timeline.themeChanged();
        stateColumn.refreshNow();
        shownRun.legend().redraw();
    }

    /** Blanks the screen (black), or brings it back: for a teacher who wants the room's eyes elsewhere. */
    public void blank() {
        if (getScene() == null) {
            return;
        }
        boolean blanking = isVisible();
        getScene().setFill(blanking ? Color.BLACK : Color.WHITE);
        setVisible(!blanking);
    }

    /** The text's size as a share of the system's. */
    double textScale() {
        return textScale;
    }

    void setTextScale(double scale) {
        applyTextScale(scale);
        if (!presenter) {
            settings.put(Settings.TEXT_SCALE, String.valueOf(textScale));
        }
    }

    private void applyTextScale(double scale) {
        textScale = Math.max(0.8, Math.min(2.5, scale));
        double size = Math.round(baseFont * textScale * 10) / 10.0;
        if (getScene() != null) {
            getScene().getRoot().setStyle("-fx-font-size: " + size + "px;");
        } else {
            setStyle("-fx-font-size: " + size + "px;");
        }
        timeline.setEm(size);
        stateColumn.setEm(size);
    }

    /** Offers the connection dialog for {@code service}; {@code problem} says what went wrong, if anything. */
    public void askForServer(Service service, String problem) {
        if (getScene() == null) {
            return;
        }
        ServerDialog dialog = new ServerDialog(getScene().getWindow(), service, problem, backends, settings);
        dialog.showAndWait().ifPresent(choice -> {
            if (choice == ServerDialog.CONNECT || choice == ServerDialog.EMBEDDED) {
                startup.start(service);
                session.reset();
            }
        });
    }

    /** A dropped file: an isolation spec opens in the isolation lab, anything else as a recording. */
    public void openDropped(Path file) {
        if (file.getFileName().toString().endsWith(".spec")) {
            selectLab(IsolationLab.ID);
            isolationBench.open(file);
        } else {
            recordings.open(file);
        }
    }

    /** What the window works on; the tests wait on its run. */
    public Session session() {
        return session;
    }

    public IsolationBench isolationBench() {
        return isolationBench;
    }

    public TimelineView timeline() {
        return timeline;
    }

    /** Saving and opening recordings: the menu's and a dropped file's way in. */
    public ExportFiles exports() {
        return exports;
    }

    public RecordingFiles recordings() {
        return recordings;
    }

    public StateColumn stateColumn() {
        return stateColumn;
    }

    public VerdictBanner banner() {
        return banner;
    }

    public GatesTable gatesTable() {
        return gates;
    }
}
