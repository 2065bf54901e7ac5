package dev.racelab.labs.counter;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.engine.view.Sketch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The counter lab's state: the row's value as PostgreSQL holds it beside the number of
 * increments that committed, the increments lost so far, and each worker with what it last read
 * and wrote — two workers that read the same value are the race, in plain sight.
 */
final class CounterView implements LabView {

    private final RunTracker tracker;
    private final boolean locking;
    private long committed;
    /** The value the row was last written to: rows are written one at a time, so this is the row's value. */
    private long written;
    /** Each worker's latest write, until its place in the server's order is known. */
    private final Map<Integer, Long> unplaced = new HashMap<>();
    /** The latest write in the server's order so far; 0 while writes carry no order (older recordings). */
    private long latestWrite;
    /** Bumped whenever what the panels show from the writes changes: the row's value may go down as well as up. */
    private long changes;

    CounterView(CounterStrategy strategy, RunHeader header) {
        this.tracker = new RunTracker(header);
        tracker.finalValue(CounterScenario.ROW, "finalValue");
        this.locking = strategy == CounterStrategy.SELECT_FOR_UPDATE;
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
        if (event.kind() == EventKind.OP_END) {
            committed++;
        } else if (event.kind() == EventKind.WRITE && CounterScenario.ROW.equals(event.subject())) {
            unplaced.put(event.actor(), event.value());
            if (latestWrite == 0) {
                written = event.value();
                changes++;
            }
        } else if (event.kind() == EventKind.WRITE_ORDER && CounterScenario.ROW.equals(event.subject())) {
            // Writes on their own may be recorded out of the server's order: the latest in it holds the row.
            Long value = unplaced.remove(event.actor());
            if (value != null && event.value() > latestWrite) {
                latestWrite = event.value();
                written = value;
                changes++;
            }
        }
    }

    /**
     * Increments lost so far, as the oracle counts them at the end: committed minus the row's value
     * (not the sum of what each overwrite replaced, which counts an increment lost twice over).
     */
    private long lost() {
        return Math.max(0, committed - written);
    }

    /**
     * The row's value: as PostgreSQL's lane last read it, or, where nobody read the server (a run
     * from the command line, which does not observe), as the last write left it; null before any.
     */
    private Long rowValue() {
        Long read = tracker.serverValue(CounterScenario.ROW);
        return read != null ? read : committed > 0 ? Long.valueOf(written) : null;
    }

    @Override
    public void concluded(Outcome outcome) {
        tracker.concluded(outcome);
    }

    @Override
    public long version() {
        return tracker.version() + committed + changes;
    }

    @Override
    public List<Panel> panels() {
        long lost = lost();
        List<Panel> panels = new ArrayList<>();
        Long value = rowValue();
        panels.add(new Panel.Values("Counter row (PostgreSQL)", List.of(
                new Panel.Value("value in the row", value == null ? "—" : String.valueOf(value), Ink.TEXT),
                new Panel.Value("increments committed", String.valueOf(committed), Ink.TEXT),
                new Panel.Value(tracker.phase() == dev.racelab.engine.RunPhase.ENDED ? "increments lost"
                        : "increments lost so far", String.valueOf(lost), lost > 0 ? Ink.RACE : Ink.SAFE))));
        if (locking) {
            panels.add(tracker.lockPanel("Row lock, as the workers report it", CounterScenario.ROW_LOCK));
        }
        panels.add(tracker.serverLocksPanel("Row lock (pg_locks)"));
        panels.add(tracker.workersPanel());
        return panels;
    }

    @Override
    public boolean hasPicture() {
        return true;
    }

    @Override
    public void draw(Sketch s) {
        double em = s.em();
        double w = s.width();
        double pad = em;
        Long value = rowValue();
        s.fill(Ink.MUTED).text("racelab.counters: this run's row", pad, pad * 1.6, 0.9, false, Sketch.Align.LEFT);
        double boxY = pad * 2.3;
        double boxH = em * 4.2;
        s.card(pad, boxY, w - 2 * pad, boxH);
        double third = (w - 2 * pad) / 3;
        column(s, pad, boxY, third, boxH, "in the row", value == null ? "—" : String.valueOf(value), Ink.TEXT);
        column(s, pad + third, boxY, third, boxH, "committed", String.valueOf(committed), Ink.TEXT);
        column(s, pad + 2 * third, boxY, third, boxH, "lost", String.valueOf(lost()), lost() > 0 ? Ink.RACE : Ink.SAFE);

        List<Integer> workers = tracker.workerActors();
        if (workers.isEmpty()) {
            return;
        }
        double top = boxY + boxH + em * 1.9;
        s.fill(Ink.MUTED).text("each client: last read → last written", pad, top - em * 0.5, 0.8, false,
                Sketch.Align.LEFT);
        double gap = em * 0.5;
        double chipH = em * 2.6;
        int perRow = Math.max(1, (int) ((w - 2 * pad + gap) / (em * 6.5 + gap)));
        double chipW = (w - 2 * pad - (perRow - 1) * gap) / perRow;
        int rows = Math.max(1, (int) ((s.height() - top + gap) / (chipH + gap)));
        int shown = Math.min(workers.size(), perRow * rows);
        for (int i = 0; i < shown; i++) {
            int actor = workers.get(i);
            RunTracker.WorkerInfo info = tracker.worker(actor);
            double x = pad + (i % perRow) * (chipW + gap);
            double y = top + (i / perRow) * (chipH + gap);
            s.fill(Ink.of(info.state())).fillRoundRect(x, y, chipW, chipH, em * 0.3);
            s.stroke(Ink.OUTLINE, 1).strokeRoundRect(x, y, chipW, chipH, em * 0.3);
            Ink text = info.state() == dev.racelab.engine.ActorState.HOLDING
                    || info.state() == dev.racelab.engine.ActorState.AT_GATE ? Ink.SURFACE : Ink.TEXT;
            s.fill(text).text(tracker.name(actor), x + em * 0.4, y + em * 1.1, 0.8, true, Sketch.Align.LEFT);
            String last = (info.hasRead() ? String.valueOf(info.lastRead()) : "·") + " → "
                    + (info.hasWritten() ? String.valueOf(info.lastWrite()) : "·");
            s.text(last, x + em * 0.4, y + em * 2.2, 0.8, false, Sketch.Align.LEFT);
        }
        if (shown < workers.size()) {
            s.fill(Ink.MUTED).text("… and " + (workers.size() - shown) + " more", pad, s.height() - em * 0.4, 0.8,
                    false, Sketch.Align.LEFT);
        }
    }

    private static void column(Sketch s, double x, double y, double w, double h, String label, String value, Ink ink) {
        double em = s.em();
        s.fill(Ink.MUTED).text(label, x + w / 2, y + em * 1.3, 0.85, false, Sketch.Align.CENTER);
        s.fill(ink).text(value, x + w / 2, y + h - em * 0.7, 2.0, true, Sketch.Align.CENTER);
    }
}
