package dev.racelab.labs.isolation;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Beside the timeline: which spec and order run, who waits for whom now, every step's fate in the
 * order sent, and the latest result tables, all from the run's events (so a recording shows the
 * same).
 */
final class IsolationView implements LabView {

    /** How many steps the step list shows, the latest last. */
    private static final int STEPS_SHOWN = 14;
    /** How many result tables are shown, the latest last. */
    private static final int TABLES_SHOWN = 3;

    private final Map<Integer, String> names = new HashMap<>();
    private final List<String> about = new ArrayList<>();
    private final Map<Integer, String> waiting = new LinkedHashMap<>();
    private final List<StepLine> steps = new ArrayList<>();
    private final Map<Integer, StepLine> current = new HashMap<>();
    private final List<Panel.Table> tables = new ArrayList<>();
    private int firstWorker = -1;
    private long version;

    /** A step as the list shows it. */
    private static final class StepLine {
        final String who;
        /** Its place in the order the conductor sent the steps (the event's value). */
        long sent;
        boolean waited;
        boolean waitingNow;
        boolean done;
        int rows = -1;
        String error;

        StepLine(String who) {
            this.who = who;
        }

        Panel.Item item() {
            String fate = error != null ? "⊘ " + error
                    : rows >= 0 ? rows + (rows == 1 ? " row" : " rows")
                    : done ? "done" : waitingNow ? "waiting" : "running";
            return new Panel.Item(who + (waited ? " (waited)" : "") + ": " + fate,
                    error != null ? Ink.RACE : waited ? Ink.WAITING : Ink.TEXT);
        }
    }

    IsolationView(RunHeader header) {
    }

    @Override
    public void accept(Event e) {
        switch (e.kind()) {
            case ACTOR -> {
                if (e.value() == Actor.Kind.WORKER.ordinal()) {
                    names.put(e.actor(), e.subject());
                    if (firstWorker < 0) {
                        firstWorker = e.actor();
                    }
                }
            }
            case ABOUT -> {
                if (e.actor() == firstWorker && about.size() < 3 && e.subject() != null) {
                    about.add(e.subject());
                    version++;
                }
            }
            case STATE -> {
                if (names.containsKey(e.actor())) {
                    StepLine line = current.get(e.actor());
                    if (e.state() == ActorState.WAITING) {
                        waiting.put(e.actor(), e.subject());
                        if (line != null) {
                            line.waited = true;
                            line.waitingNow = true;
                        }
                    } else {
                        waiting.remove(e.actor());
                        if (line != null) {
                            line.waitingNow = false;
                            // Idle, or holding its transaction open: the session is free, its step over.
                            line.done |= e.state() == ActorState.IDLE || e.state() == ActorState.HOLDING;
                        }
                    }
                    version++;
                }
            }
            case STEP_SENT -> {
                String subject = e.subject() == null ? "" : e.subject();
                int colon = subject.indexOf(':');
                StepLine line = new StepLine(names.get(e.actor()) + " · " + (colon < 0 ? subject : subject.substring(0,
                        colon)));
                line.sent = e.value();
                // In the order the steps were sent, which each lane's thread records a moment
                // later: on a busy machine a later step's lane may record it first.
                int at = steps.size();
                while (at > 0 && steps.get(at - 1).sent > line.sent) {
                    at--;
                }
                steps.add(at, line);
                current.put(e.actor(), line);
                version++;
            }
            case STEP_RESULT -> {
                StepTable table = StepTable.decode(e.subject());
                StepLine line = current.get(e.actor());
                if (line != null) {
                    line.rows = Math.max(line.rows, 0) + table.rows().size();
                }
                tables.add(new Panel.Table(names.get(e.actor()) + " · " + table.step(), table.columns(),
                        table.rows().stream().map(row -> row.stream().map(v -> v == null ? "NULL" : v).toList())
                                .toList()));
                version++;
            }
            case STEP_FAILED -> {
                StepLine line = current.get(e.actor());
                if (line != null && line.error == null) {
                    String subject = e.subject();
                    int colon = subject.indexOf(": ");
                    line.error = colon < 0 ? subject : subject.substring(colon + 2);
                }
                version++;
            }
            default -> {
            }
        }
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        panels.add(new Panel.Items("Spec", about.stream().map(text -> new Panel.Item(text, Ink.TEXT)).toList(),
                "no spec yet"));
        panels.add(new Panel.Items("Waiting now", waiting.entrySet().stream().map(w -> new Panel.Item(
                names.get(w.getKey()) + ": " + w.getValue(), Ink.WAITING)).toList(), "no step waits"));
        List<Panel.Item> shown = new ArrayList<>();
        int skipped = Math.max(0, steps.size() - STEPS_SHOWN);
        if (skipped > 0) {
            shown.add(new Panel.Item("… " + skipped + " earlier steps", Ink.MUTED));
        }
        steps.stream().skip(skipped).forEach(line -> shown.add(line.item()));
        panels.add(new Panel.Items("Steps", shown, "no step sent yet"));
        panels.addAll(tables.subList(Math.max(0, tables.size() - TABLES_SHOWN), tables.size()));
        return panels;
    }

    @Override
    public long version() {
        return version;
    }
}
