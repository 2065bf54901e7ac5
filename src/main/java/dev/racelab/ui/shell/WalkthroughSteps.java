package dev.racelab.ui.shell;

import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.Sweep;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.labs.Labs;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.batch.BatchWindow;
import dev.racelab.ui.state.StateColumn;
import dev.racelab.ui.timeline.TimelineView;
import dev.racelab.ui.walkthrough.WalkthroughBar;
import dev.racelab.ui.walkthrough.Walkthroughs;
import dev.racelab.walkthrough.Walkthrough;
import dev.racelab.walkthrough.WalkthroughReader;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.stage.FileChooser;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A walkthrough in the window: opens one (the lab's own, or a file), and sets the window up as
 * each step says, pointing at what the step names. FX thread only.
 */
final class WalkthroughSteps {

    private final MainView window;
    private final Session session;
    private final VerdictBanner banner;
    private final StateColumn stateColumn;
    private final TimelineView timeline;
    private final Node lastRuns;
    /** What shows the gates now: their table, or their one line in presenter mode. */
    private final Supplier<Node> gatesShown;
    private final WalkthroughBar walkthroughBar = new WalkthroughBar(this::showStep);
    private final Walkthroughs walkthroughs;
    /** What the step shown points at, to be let go when the next is shown. */
    private final List<Node> pointed = new ArrayList<>();
    /** A step waiting for the run the last one started to stop. */
    private Walkthrough.Step pendingStep;
    private boolean markWhenEnded;

    WalkthroughSteps(MainView window, Labs labs, Session session, VerdictBanner banner, StateColumn stateColumn,
            TimelineView timeline, Node lastRuns, Supplier<Node> gatesShown) {
        this.window = window;
        this.session = session;
        this.banner = banner;
        this.stateColumn = stateColumn;
        this.timeline = timeline;
        this.lastRuns = lastRuns;
        this.gatesShown = gatesShown;
        this.walkthroughs = new Walkthroughs(labs);
    }

    WalkthroughBar bar() {
        return walkthroughBar;
    }

    /** Opens the walkthrough of lab {@code id}, or tells there is none. */
    void open(String id) {
        try {
            // The lab on screen, if it is the one: a lab file's own walkthrough, a recording's text included.
            Walkthrough walkthrough = walkthroughs.of(id, session.lab() != null && session.lab().id().equals(id)
                    ? session.lab() : null);
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
    void open(Path file) {
        try {
            walkthroughBar.open(walkthroughs.read(file));
        } catch (WalkthroughReader.Problem e) {
            problem("This walkthrough cannot be opened", e.getMessage());
        }
    }

    void choose() {
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Open a walkthrough");
        chooser.getExtensionFilters().addAll(new FileChooser.ExtensionFilter(
                "RaceLab walkthroughs (*.walkthrough)", "*.walkthrough"),
                new FileChooser.ExtensionFilter("All files", "*"));
        File file = chooser.showOpenDialog(window.getScene().getWindow());
        if (file != null) {
            window.openWalkthrough(file.toPath());
        }
    }

    /** Closes the walkthrough and lets go of what its step pointed at. */
    void close() {
        walkthroughBar.close();
        point(List.of());
    }

    /** A step waiting for the last run to stop is shown once it has ended. */
    void runStateChanged(RunPhase phase) {
        if (phase == RunPhase.ENDED && pendingStep != null) {
            Walkthrough.Step next = pendingStep;
            Platform.runLater(() -> showStep(next));
        }
    }

    private void problem(String header, String text) {
        Alert alert = new Alert(Alert.AlertType.ERROR, text);
        alert.setHeaderText(header);
        alert.initOwner(window.getScene().getWindow());
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
            window.selectLab(step.lab());
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
            BatchWindow batch = window.openBatch();
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
                case GATES -> pointed.add(gatesShown.get());
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

    /** Once the run has an outcome, the banner steps to its first ✕ if the step pointed at the marks. */
    void showFirstMark() {
        if (markWhenEnded && session.outcomeProperty().get() != null) {
            markWhenEnded = false;
            banner.step(1);
        }
    }
}
