package dev.racelab.engine.view;

import dev.racelab.engine.Event;
import dev.racelab.engine.Ink;
import dev.racelab.engine.RunHeader;

import java.util.ArrayList;
import java.util.List;

/**
 * The view a lab gets unless it writes its own: how many workers are in each state, what the
 * server's lock table says, and the violations so far.
 */
public class DefaultView implements LabView {

    protected final RunTracker tracker;

    public DefaultView(RunHeader header) {
        this.tracker = new RunTracker(header);
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        panels.add(tracker.workersPanel());
        panels.add(tracker.serverLocksPanel("Locks, as the server reports them"));
        if (!tracker.violations().isEmpty()) {
            List<Panel.Value> rows = new ArrayList<>();
            tracker.violations().forEach((name, count) -> rows.add(new Panel.Value(name, String.valueOf(count),
                    Ink.RACE)));
            panels.add(new Panel.Values(tracker.phase() == dev.racelab.engine.RunPhase.ENDED ? "Violations"
                    : "Violations so far", rows));
        }
        return panels;
    }

    @Override
    public long version() {
        return tracker.version();
    }
}
