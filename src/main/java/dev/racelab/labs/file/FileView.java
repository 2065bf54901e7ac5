package dev.racelab.labs.file;

import dev.racelab.engine.Printable;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.view.DefaultView;
import dev.racelab.engine.view.Panel;
import dev.racelab.labfile.LabFile;

import java.util.ArrayList;
import java.util.List;

/**
 * A lab file's panels, with no Java written for the lab: the workers, the server's own locks, and
 * each invariant with the value its query or command gives — live from the servers, the final one
 * from the verdict — marked held or broken once the run is judged.
 */
final class FileView extends DefaultView {

    private final LabFile file;
    private Outcome outcome;

    FileView(RunHeader header, LabFile file) {
        super(header);
        this.file = file;
        for (LabFile.Invariant invariant : file.invariants()) {
            // A run that did not observe its servers still shows the value the verdict measured.
            tracker.finalValue(InvariantObserver.subject(invariant), invariant.verdict());
        }
    }

    @Override
    public void concluded(Outcome outcome) {
        this.outcome = outcome;
        tracker.concluded(outcome);
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        panels.add(tracker.workersPanel());
        if (file.blocks().stream().anyMatch(b -> b.server() == LabFile.Server.PG)) {
            panels.add(tracker.serverLocksPanel("Locks, as PostgreSQL reports them"));
        }
        if (!file.invariants().isEmpty()) {
            panels.add(invariants());
        }
        return panels;
    }

    /** Each invariant: its value now, and what it must be; held or broken once judged. */
    private Panel invariants() {
        boolean judged = outcome != null && tracker.phase() == RunPhase.ENDED;
        boolean broken = false;
        List<Panel.Item> items = new ArrayList<>();
        for (LabFile.Invariant invariant : file.invariants()) {
            Long value = tracker.serverValue(InvariantObserver.subject(invariant));
            String now = value == null ? "—" : String.valueOf(value);
            String line = "\"" + invariant.verdict() + "\": "
                    + Printable.excerpt(invariant.block().text().strip().replaceAll("\\s+", " "), 44)
                    + " → " + now + ", must be " + invariant.test();
            Ink ink = Ink.TEXT;
            if (judged && !broken) {
                broken = outcome.violations().containsKey(invariant.verdict());
                ink = broken ? Ink.RACE : outcome.verdict() == dev.racelab.engine.Verdict.ERROR ? Ink.TEXT : Ink.SAFE;
                line = (broken ? "✕ " : ink == Ink.SAFE ? "✓ " : "") + line;
            }
            items.add(new Panel.Item(line, ink));
        }
        return new Panel.Items(judged ? "Invariants, after the run" : "Invariants, as the servers say now", items,
                "no invariant");
    }
}
