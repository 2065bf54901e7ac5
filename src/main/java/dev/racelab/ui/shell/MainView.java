package dev.racelab.ui.shell;

import dev.racelab.ui.walkthrough.WalkthroughBar;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.ui.labfiles.LabFiles;
import dev.racelab.engine.Service;
import dev.racelab.labs.Labs;
import dev.racelab.labs.isolation.IsolationLab;
import dev.racelab.ui.isolation.IsolationBench;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.model.Settings;
import dev.racelab.ui.gates.GatesHeader;
import dev.racelab.ui.gates.GatesTable;
import dev.racelab.ui.recordings.RecordingBar;
import dev.racelab.ui.batch.BatchWindow;
import dev.racelab.ui.classroom.HostWindow;
import dev.racelab.ui.classroom.JoinWindow;
import dev.racelab.ui.explore.ExploreWindow;
import dev.racelab.ui.exports.ExportFiles;
import dev.racelab.ui.recordings.RecordingFiles;
import dev.racelab.ui.startup.ServerStartup;
import dev.racelab.ui.state.StateColumn;
import dev.racelab.ui.timeline.TimelineView;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

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
 * <p>This class lays the window out and composes it; each part with a job of its own is its own
 * class: {@link ControlBar} (bound to the session's {@link dev.racelab.ui.model.Commands}), {@link
 * WindowMenu}, {@link WindowKeys}, {@link Presentation} (theme, text size, presenter mode), {@link
 * LabList}, {@link TimelineToolbar}, {@link TimelineLegend}, {@link ShownRun}, {@link
 * WalkthroughSteps}, {@link ServerLine}, {@link DroppedFiles}.
 */
public final class MainView extends BorderPane {

    /** Where the labs column ends and the state column begins, as shares of the window's width. */
    public static final double LAB_COLUMN = 0.15;
    public static final double STATE_COLUMN = 0.75;
    /** In presenter mode, without the labs column: the lab's state takes the right third. */
    private static final double PRESENTER_STATE_COLUMN = 0.66;

    private final Session session;
    private final Labs labs;
    private final Backends backends;
    private final TimelineView timeline = new TimelineView();
    private final StateColumn stateColumn = new StateColumn();
    private final VerdictBanner banner = new VerdictBanner(timeline);
    private final GatesTable gates;
    private final ControlBar controls;
    private final LabList labList;
    private final LabFiles labFiles;
    private final RecordingFiles recordings;
    private final ExportFiles exports;
    private BatchWindow batchWindow;
    private ExploreWindow exploreWindow;
    private HostWindow hostWindow;
    private JoinWindow joinWindow;
    private final VBox labColumn;
    private final SplitPane body;
    private final SplitPane middle;
    private final Region lowerPane;
    private final Region toolbar;
    /** How the timeline and the gates share the middle column's height. */
    private final MiddleColumn heights;
    private final IsolationBench isolationBench;
    private final GatesLine gatesLine;
    private final WalkthroughSteps walkthroughs;
    /** The record shown and what follows it each frame (timeline, lab's view, gates, legend). */
    private final ShownRun shownRun;
    private final Presentation presentation;
    private final ServerLine serverLine;

    public MainView(Session session, Labs labs, Backends backends, Settings settings, ServerStartup startup) {
        this.session = session;
        this.labs = labs;
        this.backends = backends;
        getStyleClass().add("main-view");
        gates = new GatesTable(session);
        shownRun = new ShownRun(session, backends, startup, timeline, stateColumn, gates, banner);
        controls = new ControlBar(session, gates::selectedWorker);
        controls.batch.setOnAction(e -> openBatch());
        controls.explore.setOnAction(e -> openExplore());
        banner.onGuide(() -> openWalkthrough(session.lab() == null ? null : session.lab().id()));
        recordings = new RecordingFiles(session, labs, settings, this);
        exports = new ExportFiles(shownRun::record, timeline::shownLayout, session::lab, settings, this);
        labList = new LabList(labs.all());
        labList.follow(session, settings);
        labFiles = new LabFiles(labs, labList.getItems(), session, settings, settings.get(Settings.LAB_FOLDER)
                .map(Path::of).orElseGet(() -> DataHome.labs(System.getenv())), this, this::openDropped);
        timeline.selectedActorProperty().addListener((o, a, actor) -> shownRun.selectLane(actor.intValue()));
        labColumn = new VBox(new Label("Labs"), labList, labFiles.changedBar());
        labColumn.getStyleClass().add("lab-column");
        VBox.setVgrow(labList, Priority.ALWAYS);

        // The verdict sits under the timeline, on the timeline's side of the divider: however many
        // lines it needs come out of the timeline's height, never out of the gates table's rows.
        toolbar = TimelineToolbar.of(timeline);
        gatesLine = new GatesLine(session);
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
        presentation = new Presentation(this, settings, timeline, stateColumn, shownRun.legend(), this::arrange);
        heights = new MiddleColumn(middle, timelineBox, timeline, gatesPane, gates, lower, session,
                presentation::presenterMode);
        middle.heightProperty().addListener((o, a, b) -> heights.fit());
        banner.heightProperty().addListener((o, a, b) -> Platform.runLater(heights::fit));
        session.workersProperty().addListener((o, a, b) -> Platform.runLater(heights::fit));

        body = new SplitPane(labColumn, middle, stateColumn);
        body.setDividerPositions(LAB_COLUMN, STATE_COLUMN);
        SplitPane.setResizableWithParent(labColumn, false);
        SplitPane.setResizableWithParent(stateColumn, false);
        LastRuns lastRuns = new LastRuns(session);
        walkthroughs = new WalkthroughSteps(this, labs, session, banner, stateColumn, timeline, lastRuns,
                () -> presentation.presenterMode() ? gatesLine : lowerPane);
        serverLine = new ServerLine(this, session, backends, settings, startup, recordings, exports);
        WindowMenu menu = new WindowMenu(this, session, controls, walkthroughs);
        setTop(new VBox(menu, controls, walkthroughs.bar(), lastRuns, new RecordingBar(session, recordings)));
        setCenter(body);
        setBottom(serverLine);
        DroppedFiles.accept(this, recordings);
        labFiles.start();

        session.recordProperty().addListener((o, a, record) -> shownRun.showRecord(record));
        // Once the gates table has its columns and rows laid out.
        session.labProperty().addListener((o, a, lab) -> Platform.runLater(heights::fit));
        session.outcomeProperty().addListener((o, a, outcome) -> shownRun.showOutcome(outcome));
        shownRun.whenEnded(walkthroughs::showFirstMark);
        session.stateProperty().addListener((o, a, phase) -> {
            walkthroughs.runStateChanged(phase);
            shownRun.noteServers(phase);
            // Running, the run's server lanes are on the timeline: it may need more of the height.
            Platform.runLater(heights::fit);
        });
        new AnimationTimer() {
            @Override
            public void handle(long now) {
                shownRun.frame(now);
            }
        }.start();
    }

    /**
     * Presenter mode's layout: a lesson needs the timeline, the verdict, the lab's state, and Run,
     * Step, Reset; the labs column, the timeline's toolbar and the status bar are put away, and the
     * delays read as one line under the legend instead of a table. Off puts them back as they were.
     */
    private void arrange(boolean presenting) {
        if (presenting) {
            body.getItems().remove(labColumn);
            middle.getItems().remove(lowerPane);
            body.setDividerPositions(PRESENTER_STATE_COLUMN);
            getStyleClass().add("presenter");
        } else {
            body.getItems().add(0, labColumn);
            middle.getItems().add(lowerPane);
            // Once the items are laid out again: set now, the positions are lost to the new layout.
            Platform.runLater(() -> {
                heights.fit();
                body.setDividerPositions(LAB_COLUMN, STATE_COLUMN);
            });
            getStyleClass().remove("presenter");
        }
        for (Node node : List.of(toolbar, serverLine)) {
            node.setVisible(!presenting);
            node.setManaged(!presenting);
        }
        controls.lessonOnly(presenting);
        gatesLine.shown(presenting);
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

    /**
     * Opens the explore window for the lab and settings shown (a new one each time); the tests
     * reach it through {@link #exploreWindow()}.
     */
    public ExploreWindow openExplore() {
        if (session.lab() == null) {
            return null;
        }
        exploreWindow = new ExploreWindow(getScene().getWindow(), session, backends);
        exploreWindow.show();
        return exploreWindow;
    }

    /**
     * Class ▸ Host a class: opens a class on the servers, or brings its window forward if one is
     * hosted; the tests reach it through {@link #hostWindow()}.
     */
    public HostWindow openHost() {
        if (hostWindow == null || !hostWindow.stage().isShowing()) {
            hostWindow = new HostWindow(getScene().getWindow(), session, backends, DataHome.resolve(System.getenv()),
                    labs.classLabs());
        }
        hostWindow.show();
        return hostWindow;
    }

    /** Class ▸ Join a class: this machine's workers in someone's class. */
    public JoinWindow openJoin() {
        if (joinWindow == null || !joinWindow.stage().isShowing()) {
            joinWindow = new JoinWindow(getScene().getWindow(), session, DataHome.resolve(System.getenv()));
        }
        joinWindow.show();
        return joinWindow;
    }

    /**
     * Quitting: ends a class hosted here and waits a few seconds for it to be gone from the servers
     * (its login, database and keys), before the servers themselves go.
     */
    public void endClass() {
        if (hostWindow == null) {
            return;
        }
        hostWindow.close();
        try {
            hostWindow.awaitGone(java.time.Duration.ofSeconds(8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The class hosted last, or null. */
    public HostWindow hostWindow() {
        return hostWindow;
    }

    /** The join window opened last, or null. */
    public JoinWindow joinWindow() {
        return joinWindow;
    }

    /** The explore window opened last, or null. */
    public ExploreWindow exploreWindow() {
        return exploreWindow;
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
        labList.select(id);
    }

    /** Installs the keyboard shortcuts on the window's scene: they act wherever the focus is ({@link WindowKeys}). */
    public void installShortcuts(Scene scene) {
        new WindowKeys(controls, walkthroughs.bar(), session::step, new WindowKeys.Commands(
                () -> openWalkthrough(session.lab() == null ? null : session.lab().id()), walkthroughs::close,
                banner::step, presentation::presenterMode, presentation::blank)).install(scene);
    }

    /** Offers the connection dialog for {@code service}; {@code problem} says what went wrong, if anything. */
    public void askForServer(Service service, String problem) {
        serverLine.askForServer(service, problem);
    }

    /**
     * A dropped file: a lab file joins the lab list and is shown, an isolation spec opens in the
     * isolation lab, anything else as a recording.
     */
    public void openDropped(Path file) {
        if (file.getFileName().toString().endsWith(".lab")) {
            labFiles.open(file);
        } else if (file.getFileName().toString().endsWith(".spec")) {
            selectLab(IsolationLab.ID);
            isolationBench.open(file);
        } else {
            recordings.open(file);
        }
    }

    /** Theme, text size and presenter mode. */
    public Presentation presentation() {
        return presentation;
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

    public ExportFiles exports() {
        return exports;
    }

    /** The user's lab files in the lab list: File ▸ Open lab file's and a dropped file's way in. */
    public LabFiles labFiles() {
        return labFiles;
    }

    /** Saving and opening recordings: the menu's and a dropped file's way in. */
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
