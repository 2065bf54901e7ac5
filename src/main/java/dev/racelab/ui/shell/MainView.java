package dev.racelab.ui.shell;

import dev.racelab.engine.Run;
import dev.racelab.engine.Sweep;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.GatePlan;
import dev.racelab.ui.walkthrough.Walkthroughs;
import dev.racelab.ui.walkthrough.WalkthroughBar;
import dev.racelab.walkthrough.WalkthroughReader;
import dev.racelab.walkthrough.Walkthrough;
import dev.racelab.backend.Backends;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Service;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.labs.Labs;
import dev.racelab.labs.isolation.IsolationLab;
import dev.racelab.ui.isolation.IsolationBench;
import dev.racelab.ui.Palette;
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
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.ui.timeline.TimelineView;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.css.PseudoClass;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.RadioMenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.SplitPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.shape.Rectangle;
import javafx.scene.text.Font;
import org.controlsfx.control.StatusBar;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The window's content: labs on the left, controls on top, the timeline in the middle with the
 * verdict and the gates below it, the lab's state on the right, the servers in the status bar.
 * An opened recording (File ▸ Open, or a file dropped on the window) shows in the same places,
 * with a strip under the controls naming the file.
 *
 * <p>One {@link AnimationTimer} drives everything live: once per frame it asks the session what
 * the run did, drains the run's new events into the timeline and the lab's view, and redraws.
 * Worker threads never touch any of this.
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
    private final WalkthroughBar walkthroughBar = new WalkthroughBar(this::showStep);
    private final Walkthroughs walkthroughs;
    /** What the step shown points at, to be let go when the next is shown. */
    private final List<Node> pointed = new java.util.ArrayList<>();
    /** A step waiting for the run the last one started to stop. */
    private Walkthrough.Step pendingStep;
    /** Presenter mode: large, high-contrast, the labs column put away; the text size before it. */
    private boolean presenter;
    private CheckMenuItem presenterToggle;
    private CheckMenuItem darkToggle;
    private double scaleBeforePresenter = 1.0;
    private final StatusBar statusBar = new StatusBar();
    private final double baseFont = Font.getDefault().getSize();
    private double textScale = 1.0;
    private RunRecord shown;
    private TimelineModel model;
    private LabView view;
    private RunTracker tracker;
    private static final Set<ActorState> DEFAULT_LEGEND = EnumSet.of(ActorState.RUNNING, ActorState.WAITING,
            ActorState.HOLDING, ActorState.DELAYED, ActorState.AT_GATE);
    /** Wraps onto a second line where the window is narrow (presenter mode): nothing in it is cut. */
    private final FlowPane legend = new FlowPane(12, 2);
    private static final Set<EventKind> DEFAULT_MARKS = EnumSet.of(EventKind.VIOLATION);
    private Set<ActorState> legendStates = EnumSet.noneOf(ActorState.class);
    private Set<EventKind> legendMarks = EnumSet.noneOf(EventKind.class);
    /** What the legend calls the ✕ marks: the lab's name for them ("overwriting writes"), or null. */
    private String legendViolations;

    public MainView(Session session, Labs labs, Backends backends, Settings settings, ServerStartup startup) {
        this.session = session;
        this.backends = backends;
        this.settings = settings;
        this.startup = startup;
        getStyleClass().add("main-view");
        gates = new GatesTable(session);
        controls = new ControlBar(session, this::workerToStep);
        controls.batch.setOnAction(e -> openBatch());
        walkthroughs = new Walkthroughs(labs);
        banner.onGuide(() -> openWalkthrough(session.lab() == null ? null : session.lab().id()));
        recordings = new RecordingFiles(session, labs, settings, this);
        exports = new ExportFiles(() -> shown, timeline::shownWindow, labs, settings, this);
        labList = new LabList(labs.all());
        labList.getSelectionModel().selectedItemProperty().addListener((o, a, lab) -> {
            // By id: the isolation lab shown may be bound to another spec than the list's.
            if (lab != null && (session.lab() == null || !lab.id().equals(session.lab().id()))) {
                session.select(lab);
                settings.put(Settings.LAB, lab.id());
            }
        });
        timeline.selectedActorProperty().addListener((o, a, actor) -> selectLane(actor.intValue()));

        labColumn = new VBox(new Label("Labs"), labList);
        labColumn.getStyleClass().add("lab-column");
        VBox.setVgrow(labList, Priority.ALWAYS);

        // The verdict sits under the timeline, on the timeline's side of the divider: however many
        // lines it needs come out of the timeline's height, never out of the gates table's rows.
        Region toolbar = timelineToolbar();
        gatesLine.getStyleClass().add("gates-line");
        gatesLine.setMinHeight(Region.USE_PREF_SIZE);
        session.gatesProperty().addListener((o, a, plan) -> showGatesLine());
        session.labProperty().addListener((o, a, lab) -> showGatesLine());
        VBox timelineBox = new VBox(toolbar, timeline, legend(), gatesLine, banner);
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
        SplitPane.setResizableWithParent(stateColumn, false);

        setTop(new VBox(menuBar(), controls, walkthroughBar, lastRuns, new RecordingBar(session, recordings)));
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
        acceptDroppedFiles();
        // What presenter mode puts away: a lesson needs the timeline, the verdict, the lab's state,
        // and Run, Step, Reset; the delays read as one line under the legend instead of a table.
        lowerPane = lower;
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
        session.recordProperty().addListener((o, a, record) -> showRecord(record));
        session.labProperty().addListener((o, a, lab) -> {
            // Once the gates table has its columns and rows laid out.
            Platform.runLater(heights::fit);
            Lab listed = labList.getSelectionModel().getSelectedItem();
            if (lab != null && (listed == null || !listed.id().equals(lab.id()))) {
                labList.getItems().stream().filter(l -> l.id().equals(lab.id())).findFirst()
                        .ifPresent(l -> labList.getSelectionModel().select(l));
            }
        });
        session.outcomeProperty().addListener((o, a, outcome) -> {
            showOutcome(outcome);
            showFirstMark();
        });
        session.stateProperty().addListener((o, a, phase) -> {
            if (phase == RunPhase.ENDED && pendingStep != null) {
                Walkthrough.Step next = pendingStep;
                javafx.application.Platform.runLater(() -> showStep(next));
            }
        });
        session.stateProperty().addListener((o, a, phase) -> noteServers(phase));
        // Running, the run's server lanes are on the timeline: it may need more of the height.
        session.stateProperty().addListener((o, a, phase) -> Platform.runLater(heights::fit));
        new AnimationTimer() {
            @Override
            public void handle(long now) {
                frame(now);
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
        try {
            Walkthrough walkthrough = walkthroughs.of(id);
            if (walkthrough == null) {
                banner.showIdle("This lab has no walkthrough yet: Help ▸ Open a walkthrough file… opens one of your own.");
                return;
            }
            walkthroughBar.open(walkthrough);
        } catch (WalkthroughReader.Problem e) {
            problem("This walkthrough cannot be shown", e.getMessage());
        }
    }

    /** Opens a walkthrough from a file; a broken one is named in one message, and nothing changes. */
    public void openWalkthrough(java.nio.file.Path file) {
        try {
            walkthroughBar.open(walkthroughs.read(file));
        } catch (WalkthroughReader.Problem e) {
            problem("This walkthrough cannot be opened", e.getMessage());
        }
    }

    private void chooseWalkthrough() {
        javafx.stage.FileChooser chooser = new javafx.stage.FileChooser();
        chooser.setTitle("Open a walkthrough");
        chooser.getExtensionFilters().addAll(new javafx.stage.FileChooser.ExtensionFilter(
                "RaceLab walkthroughs (*.walkthrough)", "*.walkthrough"),
                new javafx.stage.FileChooser.ExtensionFilter("All files", "*"));
        java.io.File file = chooser.showOpenDialog(getScene().getWindow());
        if (file != null) {
            openWalkthrough(file.toPath());
        }
    }

    public WalkthroughBar walkthroughBar() {
        return walkthroughBar;
    }

    private void problem(String header, String text) {
        Alert alert = new Alert(Alert.AlertType.ERROR, text);
        alert.setHeaderText(header);
        alert.initOwner(getScene().getWindow());
        alert.getDialogPane().setId("walkthrough-problem");
        alert.show();
    }

    /**
     * Sets the window up as a walkthrough's step says: the lab, its settings, a fresh run if it asks
     * for one ({@link Walkthrough.Step#freshRun}; started if the step runs it), a batch, and what to
     * look at. A step that asks for none keeps the run on screen: it explains the run just made. A
     * run still going from the step before is stopped first, and the step shown once it has ended.
     */
    private void showStep(Walkthrough.Step step) {
        Run current = session.run();
        if (current != null && current.phase().live() && !session.replayingProperty().get()) {
            pendingStep = step;
            session.stop();
            return;
        }
        pendingStep = null;
        point(List.of());
        if (step.lab() != null && (session.lab() == null || !session.lab().id().equals(step.lab()))) {
            selectLab(step.lab());
        }
        Lab lab = session.lab();
        if (step.strategy() != null) {
            session.strategyProperty().set(lab.strategy(step.strategy()).orElseThrow());
        }
        if (step.workers() != null) {
            session.workersProperty().set(step.workers());
        }
        if (step.ops() != null) {
            session.opsProperty().set(step.ops());
        }
        if (step.gates() != null) {
            int workers = session.workersProperty().get();
            session.gatesProperty().set(GatePlan.parse(step.gates(), name -> lab.workerIndex(name, workers)));
        }
        SwitchValues values = session.switchesProperty().get();
        for (String set : step.switches()) {
            int eq = set.indexOf('=');
            values = values.parse(lab.profile().switchNamed(set.substring(0, eq)).orElseThrow(), set.substring(eq + 1));
        }
        session.switchesProperty().set(values);
        if (step.freshRun()) {
            session.reset();
        }
        if (step.run()) {
            session.start();
        }
        if (step.batch() != null) {
            BatchWindow batch = openBatch();
            batch.choose(step.batch().runs(), step.batch().strategies(), step.batch().sweep() == null ? null
                    : Sweep.parse(step.batch().sweep(), lab, session.workersProperty().get()));
            batch.start();
        }
        point(step.pointers());
    }

    /** Points the class's eyes at {@code pointers} (a thick outline in the highlight colour); none lets go. */
    private void point(List<Walkthrough.Pointer> pointers) {
        pointed.forEach(node -> node.getStyleClass().remove("pointed"));
        pointed.clear();
        stateColumn.point(null);
        for (Walkthrough.Pointer pointer : pointers) {
            switch (pointer.target()) {
                case BANNER, MARKS -> pointed.add(banner);
                case PICTURE -> pointed.add(stateColumn.pictureBox());
                case GATES -> pointed.add(presenter ? gatesLine : lowerPane);
                case LAST_RUNS -> pointed.add(lastRuns);
                case PANEL -> stateColumn.point(pointer.name());
                case LANE -> {
                    TimelineModel shownModel = timeline.model();
                    for (int id = 0; shownModel != null && id < shownModel.laneCount(); id++) {
                        if (pointer.name().equals(shownModel.laneName(id))) {
                            timeline.selectedActorProperty().set(id);
                        }
                    }
                }
            }
        }
        pointed.forEach(node -> node.getStyleClass().add("pointed"));
        if (pointers.stream().anyMatch(p -> p.target() == Walkthrough.Target.MARKS)) {
            // The first ✕, once the run shows one.
            markWhenEnded = true;
            showFirstMark();
        }
    }

    private boolean markWhenEnded;

    private void showFirstMark() {
        if (markWhenEnded && session.outcomeProperty().get() != null) {
            markWhenEnded = false;
            banner.step(1);
        }
    }

    /** Selects the lab with {@code id}, or the first. */
    public void selectLab(String id) {
        Lab lab = labList.getItems().stream().filter(l -> l.id().equals(id)).findFirst()
                .orElse(labList.getItems().get(0));
        labList.getSelectionModel().select(lab);
    }

    /** Installs the keyboard shortcuts on the window's scene: they act wherever the focus is ({@link WindowKeys}). */
    public void installShortcuts(Scene scene) {
        new WindowKeys(controls, walkthroughBar, session::step, new WindowKeys.Commands() {
            @Override
            public void openWalkthrough() {
                MainView.this.openWalkthrough(session.lab() == null ? null : session.lab().id());
            }

            @Override
            public void closeWalkthrough() {
                walkthroughBar.close();
                point(List.of());
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

    private void selectLane(int actor) {
        int index = tracker == null ? -1 : tracker.workerActors().indexOf(actor);
        if (index >= 0) {
            gates.selectWorker(index);
        }
    }

    private MenuBar menuBar() {
        MenuItem open = new MenuItem("Open recording…");
        open.setAccelerator(new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN));
        open.setOnAction(e -> recordings.chooseAndOpen());
        open.disableProperty().bind(recordings.busyProperty());
        MenuItem save = new MenuItem("Save recording…");
        save.setAccelerator(new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN));
        save.setOnAction(e -> recordings.chooseAndSave());
        save.disableProperty().bind(session.outcomeProperty().isNull().or(recordings.busyProperty()));
        MenuItem again = new MenuItem("Run these settings again");
        again.setAccelerator(new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN));
        again.setOnAction(e -> session.runAgain());
        again.disableProperty().bind(session.outcomeProperty().isNull());
        MenuItem batchOfRuns = new MenuItem("Batch of runs…");
        batchOfRuns.setAccelerator(new KeyCodeCombination(KeyCode.B, KeyCombination.SHORTCUT_DOWN));
        batchOfRuns.setOnAction(e -> controls.batch.fire());
        Menu export = exportMenu();
        MenuItem servers = new MenuItem("PostgreSQL server…");
        servers.setOnAction(e -> askForServer(Service.POSTGRES, null));
        MenuItem redis = new MenuItem("Redis server…");
        redis.setOnAction(e -> askForServer(Service.REDIS, null));
        MenuItem quit = new MenuItem("Quit");
        quit.setAccelerator(new KeyCodeCombination(KeyCode.Q, KeyCombination.SHORTCUT_DOWN));
        quit.setOnAction(e -> getScene().getWindow().hide());
        Menu file = new Menu("File", null, open, save, again, batchOfRuns, new SeparatorMenuItem(), export,
                new SeparatorMenuItem(), servers, redis,
                new SeparatorMenuItem(), quit);

        MenuItem larger = new MenuItem("Larger text");
        larger.setAccelerator(new KeyCodeCombination(KeyCode.EQUALS, KeyCombination.SHORTCUT_DOWN));
        larger.setOnAction(e -> setTextScale(textScale * 1.15));
        MenuItem smaller = new MenuItem("Smaller text");
        smaller.setAccelerator(new KeyCodeCombination(KeyCode.MINUS, KeyCombination.SHORTCUT_DOWN));
        smaller.setOnAction(e -> setTextScale(textScale / 1.15));
        CheckMenuItem presenterItem = new CheckMenuItem("Presenter mode (projector)");
        presenterItem.setAccelerator(new KeyCodeCombination(KeyCode.P, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN));
        presenterItem.setOnAction(e -> presenterMode(presenterItem.isSelected()));
        presenterItem.setId("presenter-mode");
        presenterToggle = presenterItem;
        CheckMenuItem dark = new CheckMenuItem("Dark theme");
        dark.setAccelerator(new KeyCodeCombination(KeyCode.D, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN));
        dark.setSelected(Palette.theme().dark());
        dark.setOnAction(e -> darkTheme(dark.isSelected()));
        darkToggle = dark;
        MenuItem blank = new MenuItem("Blank the screen (B in presenter mode)");
        blank.setOnAction(e -> blank());
        MenuItem fit = new MenuItem("Show the whole run");
        fit.setAccelerator(new KeyCodeCombination(KeyCode.DIGIT0, KeyCombination.SHORTCUT_DOWN));
        fit.setOnAction(e -> timeline.fit());
        MenuItem follow = new MenuItem("Follow live");
        follow.setAccelerator(new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN));
        follow.setOnAction(e -> timeline.followLiveProperty().set(true));
        Menu viewMenu = new Menu("View", null, presenterItem, dark, blank, new SeparatorMenuItem(), larger, smaller,
                new SeparatorMenuItem(), fit, follow);

        MenuItem keys = new MenuItem("Keyboard shortcuts");
        keys.setAccelerator(new KeyCodeCombination(KeyCode.F1));
        keys.setOnAction(e -> WindowKeys.showAll(getScene().getWindow()));
        MenuItem guide = new MenuItem("Walkthrough of this lab");
        guide.setAccelerator(new KeyCodeCombination(KeyCode.F2));
        guide.setOnAction(e -> openWalkthrough(session.lab() == null ? null : session.lab().id()));
        MenuItem guideFile = new MenuItem("Open a walkthrough file…");
        guideFile.setOnAction(e -> chooseWalkthrough());
        Menu help = new Menu("Help", null, guide, guideFile, new SeparatorMenuItem(), keys);
        MenuBar bar = new MenuBar(file, viewMenu, help);
        bar.setUseSystemMenuBar(true);
        return bar;
    }

    /**
     * File ▸ Export: the timeline (as shown, or whole) and the lab's picture as PNG or SVG, the
     * events as CSV, the run as a Chrome trace; PNG's scale. What the shown run cannot give is
     * greyed when the menu opens.
     */
    private Menu exportMenu() {
        Menu menu = new Menu("Export");
        for (ExportFiles.Kind kind : ExportFiles.Kind.values()) {
            MenuItem item = new MenuItem(kind.words());
            item.setOnAction(e -> exports.chooseAndExport(kind));
            item.setUserData(kind);
            menu.getItems().add(item);
            if (kind == ExportFiles.Kind.PICTURE_SVG) {
                menu.getItems().add(new SeparatorMenuItem());
            }
        }
        menu.getItems().add(new SeparatorMenuItem());
        ToggleGroup scales = new ToggleGroup();
        Menu scale = new Menu("PNG scale");
        for (int pixels = 1; pixels <= 4; pixels++) {
            int chosen = pixels;
            RadioMenuItem item = new RadioMenuItem(pixels + "×" + (pixels == 2 ? " (sharp on most projectors)" : ""));
            item.setToggleGroup(scales);
            item.setSelected(pixels == exports.scale());
            item.setOnAction(e -> exports.scale(chosen));
            scale.getItems().add(item);
        }
        menu.getItems().add(scale);
        menu.setOnShowing(e -> menu.getItems().forEach(item -> {
            if (item.getUserData() instanceof ExportFiles.Kind kind) {
                item.setDisable(exports.busyProperty().get() || !exports.canExport(kind));
            }
        }));
        return menu;
    }

    private Region timelineToolbar() {
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
        for (javafx.scene.control.Control control : new javafx.scene.control.Control[] {follow, fit, zoomIn, zoomOut,
            compact}) {
            control.setMinWidth(Region.USE_PREF_SIZE);
        }
        return bar;
    }

    /** What the colours and marks on the timeline mean, under it: the states this run has shown so far. */
    private Region legend() {
        legend.getStyleClass().add("legend");
        legend.setAlignment(Pos.CENTER_LEFT);
        legend.setMinWidth(0);
        // Whole: when a long verdict below takes room, the timeline's lanes give it up.
        legend.setMinHeight(Region.USE_PREF_SIZE);
        showLegend(DEFAULT_LEGEND, DEFAULT_MARKS);
        return legend;
    }

    /**
     * Shows a chip for each state and each kind of mark, in the words of the vocabulary
     * ({@link ActorState#legend()}, {@link EventKind#legend()}).
     */
    private void showLegend(Set<ActorState> states, Set<EventKind> marks) {
        legendStates = EnumSet.copyOf(states);
        legendMarks = EnumSet.copyOf(marks);
        legend.getChildren().clear();
        // States drawn in one colour (a hungry philosopher is a waiting one) share a chip.
        Map<Color, String> chips = new LinkedHashMap<>();
        for (ActorState state : legendStates) {
            if (state.legend() != null) {
                chips.merge(Palette.of(state.ink()), state.legend(), (a, b) -> a + " / " + b);
            }
        }
        chips.forEach((color, text) -> legend.getChildren().add(chip(text, color)));
        legendViolations = model == null ? null : model.violationSubject();
        for (EventKind kind : legendMarks) {
            if (kind == EventKind.VIOLATION && legendViolations != null) {
                legend.getChildren().add(mark("✕ " + legendViolations, kind.ink()));
            } else if (kind.legend() != null) {
                legend.getChildren().add(mark(kind.legend(), kind.ink()));
            }
        }
        Label stripe = new Label("thin stripe under a worker: what the server says (orange waits, blue holds)");
        stripe.getStyleClass().add("hint");
        stripe.setMinWidth(0);
        legend.getChildren().add(stripe);
    }

    private static Label mark(String text, Ink ink) {
        Label label = new Label(text);
        label.getStyleClass().add("legend-chip");
        label.setTextFill(Palette.of(ink));
        label.setMinWidth(Region.USE_PREF_SIZE);
        return label;
    }

    private static Label chip(String text, Color color) {
        Rectangle swatch = new Rectangle(12, 12, color);
        swatch.setStroke(color.darker());
        Label label = new Label(text, swatch);
        label.getStyleClass().add("legend-chip");
        label.setMinWidth(Region.USE_PREF_SIZE);
        return label;
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
        presenterToggle.setSelected(on);
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
        darkToggle.setSelected(on);
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
        showLegend(legendStates, legendMarks);
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

    private void setTextScale(double scale) {
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

    private void showRecord(RunRecord record) {
        shown = record;
        if (record == null) {
            model = null;
            view = null;
            tracker = null;
            timeline.setModel(null);
            stateColumn.setView(null);
            gates.update(null);
            return;
        }
        model = new TimelineModel(record.events());
        tracker = new RunTracker(record.header());
        showLegend(DEFAULT_LEGEND, DEFAULT_MARKS);
        view = session.view();
        model.drain(TimelineModel.MAX_PER_FRAME, this::feed);
        timeline.setModel(model);
        stateColumn.setView(view);
        if (session.replayingProperty().get()) {
            return;
        }
        banner.showIdle(session.stepModeProperty().get()
                ? "Step mode: press Run (F5), then Step (F10) one worker at a time."
                : "Press Run (F5). Set delays in the gates table below to provoke the race.");
    }

    /** Hands one event of the shown record to everything that follows it besides the timeline. */
    private void feed(dev.racelab.engine.Event event) {
        view.accept(event);
        tracker.accept(event);
    }

    private void showOutcome(Outcome outcome) {
        if (outcome != null) {
            model.drain(Integer.MAX_VALUE, this::feed);
            gates.update(tracker);
            stateColumn.refreshNow();
            if (timeline.followLiveProperty().get() || session.replayingProperty().get()) {
                timeline.fit();
            }
            banner.showOutcome(outcome);
        }
    }

    private void frame(long now) {
        session.tick();
        if (shown == null) {
            return;
        }
        model.drain(TimelineModel.MAX_PER_FRAME, this::feed);
        RunPhase phase = tracker.phase();
        boolean live = phase.live() && !shown.ended();
        long since = model.origin() == Long.MIN_VALUE ? 0 : session.clock().nanos() - model.origin();
        timeline.render(live ? since : model.latest(), live || model.behind());
        if (live) {
            view.live(session.clock().nanos());
        }
        stateColumn.refresh(now);
        gates.update(tracker);
        if (!legendStates.containsAll(model.statesSeen()) || !legendMarks.containsAll(model.marksSeen())
                || !Objects.equals(legendViolations, model.violationSubject())) {
            EnumSet<ActorState> states = EnumSet.copyOf(legendStates);
            states.addAll(model.statesSeen());
            EnumSet<EventKind> marks = EnumSet.copyOf(legendMarks);
            marks.addAll(model.marksSeen());
            showLegend(states, marks);
        }
        if (live) {
            banner.showProgress(tracker, phase == RunPhase.PREPARING ? serversAwaited() : null);
        }
    }

    /** The lab's servers not up yet, or null when all are: what a run pressed before them waits for. */
    private VerdictBanner.Awaited serversAwaited() {
        java.util.List<String> servers = new java.util.ArrayList<>();
        java.util.List<String> status = new java.util.ArrayList<>();
        for (Service service : session.lab().services()) {
            if (!startup.readyProperty(service).get()) {
                servers.add(service.displayName());
                status.add(startup.statusProperty(service).get());
            }
        }
        return servers.isEmpty() ? null
                : new VerdictBanner.Awaited(String.join(" and ", servers), String.join(" · ", status));
    }

    /**
     * Notes on the live run's record what serves its servers, once they are up: when it leaves
     * preparing (or ends there), as the command line does, so a saved recording says it.
     */
    private void noteServers(RunPhase phase) {
        RunRecord record = session.record();
        if (record == null || session.replayingProperty().get() || !record.backend().isEmpty()
                || phase == null || phase == RunPhase.READY || phase == RunPhase.PREPARING) {
            return;
        }
        record.backend(backends.describe(session.lab().services()));
    }

    /** A recording dropped on the window opens as Open does; the window is outlined while one is over it. */
    private void acceptDroppedFiles() {
        PseudoClass dropTarget = PseudoClass.getPseudoClass("drop-target");
        setOnDragOver(e -> {
            if (e.getGestureSource() == null && e.getDragboard().hasFiles() && e.getDragboard().getFiles().size() == 1
                    && !recordings.busyProperty().get()) {
                e.acceptTransferModes(TransferMode.COPY);
                pseudoClassStateChanged(dropTarget, true);
            }
            e.consume();
        });
        setOnDragExited(e -> pseudoClassStateChanged(dropTarget, false));
        setOnDragDropped(e -> {
            pseudoClassStateChanged(dropTarget, false);
            boolean taken = e.getDragboard().hasFiles() && e.getDragboard().getFiles().size() == 1;
            e.setDropCompleted(taken);
            e.consume();
            if (taken) {
                // After the drop completes, so the file manager is not kept waiting by a message.
                Path file = e.getDragboard().getFiles().get(0).toPath();
                Platform.runLater(() -> openDropped(file));
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
