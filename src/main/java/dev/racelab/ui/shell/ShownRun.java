package dev.racelab.ui.shell;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Service;
import dev.racelab.engine.TimeOrigin;
import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.gates.GatesTable;
import dev.racelab.ui.startup.ServerStartup;
import dev.racelab.ui.state.StateColumn;
import dev.racelab.ui.timeline.TimelineView;

import java.util.ArrayList;
import java.util.List;

/**
 * The record shown (live or opened) and everything that follows it: once per frame it asks the
 * session what the run did, its {@link Feed} hands the run's new events (a bounded batch, at the
 * run's end too) to the timeline, the lab's view and the tracker (banner, gates table), and it
 * redraws. FX thread only: worker threads never
 * touch any of this.
 */
final class ShownRun {

    private final Session session;
    private final Backends backends;
    private final ServerStartup startup;
    private final TimelineView timeline;
    private final StateColumn stateColumn;
    private final GatesTable gates;
    private final VerdictBanner banner;
    private RunRecord shown;
    private Feed feed;
    /** The run's outcome, shown once the feed has handed on the whole record (null: none waiting). */
    private Outcome ended;
    /** What else follows the run's end, once it is shown (the walkthrough's step to the first ✕). */
    private Runnable whenEnded = () -> { };
    private TimelineModel model;
    private LabView view;
    private RunTracker tracker;
    /** Declared after the model it names the ✕ marks from. */
    private final TimelineLegend legend = new TimelineLegend(() -> model);

    ShownRun(Session session, Backends backends, ServerStartup startup, TimelineView timeline,
            StateColumn stateColumn, GatesTable gates, VerdictBanner banner) {
        this.session = session;
        this.backends = backends;
        this.startup = startup;
        this.timeline = timeline;
        this.stateColumn = stateColumn;
        this.gates = gates;
        this.banner = banner;
    }

    /** The record shown, or null. */
    RunRecord record() {
        return shown;
    }

    TimelineLegend legend() {
        return legend;
    }

    void showRecord(RunRecord record) {
        shown = record;
        ended = null;
        if (record == null) {
            feed = null;
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
        legend.showDefaults();
        view = session.view();
        feed = new Feed(record.events(), model::accept, view::accept, tracker::accept);
        feed.frame();
        timeline.setModel(model);
        stateColumn.setView(view);
        if (session.replayingProperty().get()) {
            return;
        }
        banner.showIdle(session.stepModeProperty().get()
                ? "Step mode: press Run (F5), then Step (F10) one worker at a time."
                : "Press Run (F5). Set delays in the gates table below to provoke the race.");
    }

    /** Runs {@code action} each time a run's end has been shown (after its banner, with every mark counted). */
    void whenEnded(Runnable action) {
        whenEnded = action;
    }

    void showOutcome(Outcome outcome) {
        if (outcome != null) {
            ended = outcome;
            caughtUp();
        }
    }

    /**
     * Once the feed has handed on the whole ended record: the gates table, the state column, the
     * whole run in view, then the verdict's banner (which counts the ✕ marks on the timeline) and
     * what follows it.
     */
    private void caughtUp() {
        if (ended == null || feed == null || feed.behind()) {
            return;
        }
        Outcome outcome = ended;
        ended = null;
        gates.update(tracker);
        // The lab's panels know the verdict too (a lab file's invariants: held or broken), as its exported picture does.
        view.concluded(outcome);
        stateColumn.refreshNow();
        if (timeline.followLiveProperty().get() || session.replayingProperty().get()) {
            timeline.fit();
        }
        banner.showOutcome(outcome);
        whenEnded.run();
    }

    void frame(long now) {
        session.tick();
        if (shown == null) {
            return;
        }
        feed.frame();
        caughtUp();
        RunPhase phase = tracker.phase();
        boolean live = phase.live() && !shown.ended();
        long since = model.origin() == TimeOrigin.UNKNOWN ? 0 : session.clock().nanos() - model.origin();
        timeline.render(live ? since : model.latest(), live || feed.behind());
        if (live) {
            view.live(session.clock().nanos());
        }
        stateColumn.refresh(now);
        gates.update(tracker);
        legend.widen(model);
        if (live) {
            banner.showProgress(tracker, phase == RunPhase.PREPARING ? serversAwaited() : null);
        }
    }

    /** The lab's servers not up yet, or null when all are: what a run pressed before them waits for. */
    private VerdictBanner.Awaited serversAwaited() {
        List<String> servers = new ArrayList<>();
        List<String> status = new ArrayList<>();
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
    void noteServers(RunPhase phase) {
        RunRecord record = session.record();
        if (record == null || session.replayingProperty().get() || !record.backend().isEmpty()
                || phase == null || phase == RunPhase.READY || phase == RunPhase.PREPARING) {
            return;
        }
        record.backend(backends.describe(session.lab().services()));
    }

    /** A lane clicked on the timeline selects its worker in the gates table, for Step. */
    void selectLane(int actor) {
        int index = tracker == null ? -1 : tracker.workerActors().indexOf(actor);
        if (index >= 0) {
            gates.selectWorker(index);
        }
    }
}
