package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.engine.view.Sketch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The advisory-lock lab's state: the pool's connections, each with the locks it holds and who
 * believes in them (a lock nobody believes in is drawn in the race's colour: ORPHANED); the
 * workers, with what they believe they hold and how often they were refused; the counts the
 * verdict gives; and {@code pg_locks} as the server lane read it. All from the run's events
 * ({@link LockTable}), so a recording shows the same with no server.
 */
final class AdvisoryView implements LabView {

    /** The key figure's name on screen: the oracle's name for it. */
    static final String LEFT_BEHIND = AdvisoryScenario.LEFT_BEHIND;
    static final String OVERLAPS = AdvisoryScenario.OVERLAPS;
    static final String ORPHANED = "ORPHANED";

    private final RunTracker tracker;
    private final LockTable table;
    private final LockKeys.Resources resources;
    private final int poolSize;
    /** The workers' actor ids: only their events feed the lock table. */
    private final Set<Integer> workers = new HashSet<>();
    /** Whether the servers were read in this run (the window's runs; the command line's are not). */
    private boolean observed;
    private long changes;

    AdvisoryView(AdvisoryStrategy strategy, RunHeader header) {
        this.tracker = new RunTracker(header);
        this.table = new LockTable(header.spec().switches().get(AdvisoryLockLab.KEYS), strategy.transactionLevel());
        this.resources = header.spec().switches().get(AdvisoryLockLab.RESOURCES);
        this.poolSize = header.spec().switches().get(AdvisoryLockLab.POOL_SIZE);
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
        if (event.kind() == EventKind.ACTOR) {
            if (event.value() == Actor.Kind.WORKER.ordinal()) {
                workers.add(event.actor());
            }
        } else if (event.kind() == EventKind.SERVER_SAMPLE && !observed) {
            observed = true;
            changes++;
        } else if (workers.contains(event.actor()) && table.accept(event)) {
            changes++;
        }
    }

    @Override
    public long version() {
        return tracker.version() + changes;
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        long left = table.leftBehind();
        boolean ended = tracker.phase() == RunPhase.ENDED;
        List<Panel.Value> counts = new ArrayList<>();
        counts.add(new Panel.Value("locks granted", String.valueOf(table.acquisitions()), Ink.TEXT));
        counts.add(new Panel.Value("tries refused (still locked)", String.valueOf(table.refused()), Ink.TEXT));
        counts.add(new Panel.Value("requests given up", String.valueOf(table.gaveUp()), Ink.TEXT));
        counts.add(new Panel.Value("unlocks that returned false", String.valueOf(table.falseUnlocks()), Ink.TEXT));
        counts.add(new Panel.Value(LEFT_BEHIND, String.valueOf(left), left > 0 ? Ink.RACE : Ink.SAFE));
        counts.add(new Panel.Value(OVERLAPS, String.valueOf(table.overlaps()), table.overlaps() > 0 ? Ink.RACE : Ink.TEXT));
        if (resources == LockKeys.Resources.COLLIDING) {
            counts.add(new Panel.Value("key collisions", String.valueOf(table.collisions()),
                    table.collisions() > 0 ? Ink.HIGHLIGHT : Ink.TEXT));
        }
        panels.add(new Panel.Values(ended ? "Locks" : "Locks so far", counts));

        List<Panel.Item> holds = new ArrayList<>();
        for (LockTable.Hold hold : table.holds()) {
            String head = hold.session() + " · key " + hold.key() + " · held " + hold.times() + "×";
            if (hold.believed() == 0) {
                holds.add(new Panel.Item(head + " · " + ORPHANED + ": no worker owns it", Ink.RACE));
            } else {
                holds.add(new Panel.Item(head + " · " + names(hold.believers()) + " believe"
                        + (hold.believers().size() == 1 ? "s" : "") + " it" + (hold.leftBehind() > 0
                                ? "; " + hold.leftBehind() + "× nobody's" : ""),
                        hold.leftBehind() > 0 ? Ink.RACE : Ink.HOLDING));
            }
        }
        panels.add(new Panel.Items("The pool's locks, by the workers' calls", holds, "no connection holds a lock"));
        panels.add(observed ? tracker.serverLocksPanel("pg_locks, as PostgreSQL reports it")
                : new Panel.Items("pg_locks, as PostgreSQL reports it",
                        List.of(new Panel.Item("not read in this run (the command line does not observe)", Ink.MUTED)),
                        ""));
        panels.add(workersPanel());
        if (resources == LockKeys.Resources.COLLIDING) {
            AdvisoryKey first = table.announcedKey(LockKeys.FIRST);
            AdvisoryKey second = table.announcedKey(LockKeys.SECOND);
            Ink ink = first == null || second == null ? Ink.TEXT : first.equals(second) ? Ink.RACE : Ink.SAFE;
            panels.add(new Panel.Values("The invoices' keys (" + table.keys().title() + ")", List.of(
                    new Panel.Value(LockKeys.FIRST, first == null ? "—" : first.toString(), ink),
                    new Panel.Value(LockKeys.SECOND, second == null ? "—" : second.toString(), ink))));
        }
        return panels;
    }

    private Panel workersPanel() {
        boolean two = resources == LockKeys.Resources.COLLIDING;
        List<List<String>> rows = new ArrayList<>();
        for (int actor : tracker.workerActors()) {
            LockTable.Belief belief = table.belief(actor);
            List<String> row = new ArrayList<>();
            row.add(tracker.name(actor));
            if (two) {
                row.add(belief == null ? "—" : belief.resource());
            }
            row.add(belief == null || belief.times() == 0 ? "—" : belief.times() + "×");
            row.add(String.valueOf(table.refusedOf(actor)));
            List<Boolean> answers = table.answers(actor);
            row.add(answers.isEmpty() ? "—" : answers.stream().map(String::valueOf).collect(Collectors.joining(", ")));
            rows.add(row);
        }
        List<String> columns = two ? List.of("worker", "invoice", "believes it holds", "refused", "last unlocks")
                : List.of("worker", "believes it holds", "refused", "last unlocks");
        return new Panel.Table("Each worker", columns, rows);
    }

    private String names(List<Integer> actors) {
        return actors.stream().map(tracker::name).collect(Collectors.joining(", "));
    }

    @Override
    public boolean hasPicture() {
        return true;
    }

    @Override
    public void draw(Sketch s) {
        double em = s.em();
        double pad = em * 0.8;
        double w = s.width() - 2 * pad;
        double y = pad + em * 1.2;
        long left = table.leftBehind();
        s.fill(left > 0 ? Ink.RACE : Ink.SAFE).text(LEFT_BEHIND + ": " + left, pad, y, 1.15, true, Sketch.Align.LEFT);
        y += em * 1.4;
        long overlaps = table.overlaps();
        s.fill(overlaps > 0 ? Ink.RACE : Ink.TEXT).text(OVERLAPS + ": " + overlaps, pad, y, 0.85, overlaps > 0,
                Sketch.Align.LEFT);

        AdvisoryKey first = table.announcedKey(LockKeys.FIRST);
        AdvisoryKey second = table.announcedKey(LockKeys.SECOND);
        boolean collide = first != null && first.equals(second);
        for (String name : resources.names()) {
            AdvisoryKey key = table.announcedKey(name);
            if (key != null) {
                y += em * 1.3;
                s.fill(collide ? Ink.RACE : Ink.TOKEN).text(name + " → key " + key, pad, y, 0.8, collide,
                        Sketch.Align.LEFT);
            }
        }
        if (collide) {
            y += em * 1.3;
            s.fill(Ink.RACE).text("one key, one lock: key collisions " + table.collisions(), pad, y, 0.8, true,
                    Sketch.Align.LEFT);
        }

        y += em * 1.6;
        s.fill(Ink.MUTED).text("The pool · HikariCP, " + poolSize + (poolSize == 1 ? " connection" : " connections"),
                pad, y, 0.8, false, Sketch.Align.LEFT);
        y += em * 0.5;
        List<LockTable.Hold> holds = table.holds();
        List<Map.Entry<Integer, String>> sessions = List.copyOf(table.sessions().entrySet());
        int columns = Math.max(1, Math.min(Math.max(1, sessions.size()), (int) ((w + em * 0.6) / (em * 9.5))));
        double boxW = (w - (columns - 1) * em * 0.6) / columns;
        double boxH = em * 4.6;
        if (sessions.isEmpty()) {
            s.fill(Ink.MUTED).text("no connection lent yet", pad, y + em * 1.3, 0.8, false, Sketch.Align.LEFT);
            y += em * 2.2;
        }
        for (int i = 0; i < sessions.size(); i++) {
            double x = pad + (i % columns) * (boxW + em * 0.6);
            double top = y + (i / columns) * (boxH + em * 0.6);
            drawSession(s, sessions.get(i).getKey(), sessions.get(i).getValue(), holds, x, top, boxW, boxH);
        }
        y += ((sessions.size() + columns - 1) / columns) * (boxH + em * 0.6) + em * 0.9;

        s.fill(Ink.MUTED).text("The workers", pad, y, 0.8, false, Sketch.Align.LEFT);
        y += em * 0.5;
        List<Integer> lanes = tracker.workerActors();
        int chipColumns = Math.max(1, (int) ((w + em * 0.5) / (em * 9.5)));
        double chipW = (w - (chipColumns - 1) * em * 0.5) / chipColumns;
        double chipH = em * 3.1;
        for (int i = 0; i < lanes.size(); i++) {
            double x = pad + (i % chipColumns) * (chipW + em * 0.5);
            double top = y + (i / chipColumns) * (chipH + em * 0.5);
            drawWorker(s, lanes.get(i), x, top, chipW, chipH);
        }
    }

    /** One pooled connection: its name, the lock it holds and how often, and who believes in it. */
    private void drawSession(Sketch s, int pid, String name, List<LockTable.Hold> holds, double x, double y, double w,
                             double h) {
        double em = s.em();
        LockTable.Hold hold = holds.stream().filter(o -> o.pid() == pid).findFirst().orElse(null);
        boolean orphan = hold != null && hold.leftBehind() > 0;
        Ink ink = hold == null ? Ink.OUTLINE : orphan ? Ink.RACE : Ink.HOLDING;
        s.fill(Ink.SURFACE).fillRoundRect(x, y, w, h, em * 0.4);
        s.stroke(ink, hold == null ? 1 : orphan ? 3.5 : 2.5).strokeRoundRect(x, y, w, h, em * 0.4);
        s.fill(Ink.TEXT).text(name, x + em * 0.6, y + em * 1.3, 0.9, true, Sketch.Align.LEFT);
        if (hold == null) {
            s.fill(Ink.MUTED).text("holds no lock", x + em * 0.6, y + em * 2.8, 0.8, false, Sketch.Align.LEFT);
            return;
        }
        s.fill(Ink.TOKEN).text("key " + shortKey(hold.key()) + " · " + hold.times() + "×", x + em * 0.6, y + em * 2.6,
                0.8, true, Sketch.Align.LEFT);
        if (hold.believed() == 0) {
            s.fill(Ink.RACE).text(ORPHANED + ": no worker owns it", x + em * 0.6, y + em * 3.9, 0.8, true,
                    Sketch.Align.LEFT);
        } else {
            s.fill(orphan ? Ink.RACE : Ink.HOLDING).text((orphan ? hold.leftBehind() + "× nobody's · " : "")
                    + names(hold.believers()), x + em * 0.6, y + em * 3.9, 0.8, orphan, Sketch.Align.LEFT);
        }
    }

    /** One worker: its name, what it believes it holds, or what it does, and how often it was refused. */
    private void drawWorker(Sketch s, int actor, double x, double y, double w, double h) {
        double em = s.em();
        LockTable.Belief belief = table.belief(actor);
        RunTracker.WorkerInfo info = tracker.worker(actor);
        boolean holds = belief != null && belief.times() > 0;
        Ink ink = holds ? Ink.HOLDING : info.state().ink();
        s.fill(Ink.SURFACE).fillRoundRect(x, y, w, h, em * 0.4);
        s.stroke(ink, holds ? 2.5 : 1).strokeRoundRect(x, y, w, h, em * 0.4);
        s.fill(Ink.TEXT).text(tracker.name(actor), x + em * 0.5, y + em * 1.2, 0.85, true, Sketch.Align.LEFT);
        int refused = table.refusedOf(actor);
        if (refused > 0) {
            s.fill(Ink.WAITING).text("⊘" + refused, x + w - em * 0.5, y + em * 1.2, 0.8, true, Sketch.Align.RIGHT);
        }
        String status = holds ? "holds it" + (belief.times() > 1 ? " " + belief.times() + "×" : "")
                : info.state().label();
        s.fill(holds ? Ink.HOLDING : Ink.MUTED).text(status, x + em * 0.5, y + em * 2.5, 0.8, holds, Sketch.Align.LEFT);
    }

    /** A key short enough for a box: a 64-bit hash's nineteen digits cut to their first ten. */
    private static String shortKey(AdvisoryKey key) {
        String text = key.toString();
        return text.length() > 12 ? text.substring(0, 10) + "…" : text;
    }
}
