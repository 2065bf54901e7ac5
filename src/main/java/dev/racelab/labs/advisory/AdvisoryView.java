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
    /** Panel rows and titles short enough for the state column in presenter mode. */
    static final String FALSE_UNLOCKS = "false unlocks";
    static final String OVERLAPPING = "overlapping sections";
    /** The pool's locks as the workers' calls tell them; PostgreSQL's own lock table, as the server lane read it. */
    static final String POOL_HOLDS = "The pool holds";
    static final String PG_LOCKS = "pg_locks shows";

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
        counts.add(new Panel.Value("tries refused", String.valueOf(table.refused()), Ink.TEXT));
        counts.add(new Panel.Value("requests given up", String.valueOf(table.gaveUp()), Ink.TEXT));
        counts.add(new Panel.Value(FALSE_UNLOCKS, String.valueOf(table.falseUnlocks()), Ink.TEXT));
        counts.add(new Panel.Value(LEFT_BEHIND, String.valueOf(left), left > 0 ? Ink.RACE : Ink.SAFE));
        counts.add(new Panel.Value(OVERLAPPING, String.valueOf(table.overlaps()),
                table.overlaps() > 0 ? Ink.RACE : Ink.TEXT));
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
        panels.add(new Panel.Items(POOL_HOLDS, holds, "no connection holds a lock"));
        panels.add(observed ? tracker.serverLocksPanel(PG_LOCKS)
                : new Panel.Items(PG_LOCKS,
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
                row.add(belief == null ? "—" : belief.resource().substring(belief.resource().lastIndexOf('-') + 1));
            }
            row.add(belief == null || belief.times() == 0 ? "—" : belief.times() + "×");
            row.add(String.valueOf(table.refusedOf(actor)));
            if (!two) {
                row.add(answered(table.answers(actor)));
            }
            rows.add(row);
        }
        List<String> columns = two ? List.of("worker", "invoice", "holds", "refused")
                : List.of("worker", "holds", "refused", "unlocks said");
        return new Panel.Table("Each worker", columns, rows);
    }

    /**
     * What a worker's unlocks answered over the run, counted: "true ×3, false"; "—" before any. The
     * column's falses add up to the run's false unlocks.
     */
    static String answered(List<Boolean> answers) {
        if (answers.isEmpty()) {
            return "—";
        }
        long trues = answers.stream().filter(Boolean::booleanValue).count();
        long falses = answers.size() - trues;
        List<String> parts = new ArrayList<>();
        if (trues > 0) {
            parts.add("true" + (trues > 1 ? " ×" + trues : ""));
        }
        if (falses > 0) {
            parts.add("false" + (falses > 1 ? " ×" + falses : ""));
        }
        return String.join(", ", parts);
    }

    private String names(List<Integer> actors) {
        return actors.stream().map(tracker::name).collect(Collectors.joining(", "));
    }

    @Override
    public boolean hasPicture() {
        return true;
    }

    /**
     * The counts on top, then the pool's connections, one box each, those holding a lock first
     * (an orphan in the race's colour), then, as room allows, the invoices' keys. A small column
     * (presenter mode) keeps the boxes that hold a lock and says how many more hold nothing.
     */
    @Override
    public void draw(Sketch s) {
        double em = s.em();
        double pad = em * 0.8;
        double w = s.width() - 2 * pad;
        double bottom = s.height() - pad;
        double y = pad + em * 1.2;
        long left = table.leftBehind();
        long overlaps = table.overlaps();
        s.fill(left > 0 ? Ink.RACE : Ink.SAFE).text(LEFT_BEHIND + ": " + left, pad, y, 1.1, true, Sketch.Align.LEFT);
        y += em * 1.35;
        s.fill(overlaps > 0 ? Ink.RACE : Ink.TEXT).text(OVERLAPS + ": " + overlaps, pad, y, 0.8, overlaps > 0,
                Sketch.Align.LEFT);
        y += em * 0.6;

        List<LockTable.Hold> holds = table.holds();
        List<Map.Entry<Integer, String>> sessions = new ArrayList<>(table.sessions().entrySet());
        sessions.sort(java.util.Comparator.comparing(e -> holds.stream().noneMatch(h -> h.pid() == e.getKey())));
        int holding = (int) sessions.stream().filter(e -> holds.stream().anyMatch(h -> h.pid() == e.getKey())).count();
        int columns = w >= em * 30 ? 2 : 1;
        double gap = em * 0.45;
        double boxW = (w - (columns - 1) * gap) / columns;
        double boxH = em * 2.9;
        int rows = (int) ((bottom - y + gap) / (boxH + gap));
        int shown = Math.min(sessions.size(), Math.max(Math.min(1, sessions.size()), rows * columns));
        if (shown < sessions.size() && shown > holding && shown > 1) {
            shown--;  // room for the line that says what is not shown
        }
        for (int i = 0; i < shown; i++) {
            double x = pad + (i % columns) * (boxW + gap);
            double top = y + (i / columns) * (boxH + gap);
            drawSession(s, sessions.get(i).getKey(), sessions.get(i).getValue(), holds, x, top, boxW, boxH);
        }
        y += ((shown + columns - 1) / columns) * (boxH + gap);
        if (sessions.isEmpty()) {
            y += em * 1.1;
            s.fill(Ink.MUTED).text("no connection lent yet", pad, y, 0.8, false, Sketch.Align.LEFT);
        } else if (shown < sessions.size()) {
            int hidden = sessions.size() - shown;
            int hiddenHolding = Math.max(0, holding - shown);
            y += em * 1.0;
            s.fill(hiddenHolding > 0 ? Ink.RACE : Ink.MUTED).text("+ " + hidden + " more connection"
                    + (hidden == 1 ? "" : "s") + (hiddenHolding > 0 ? ", " + hiddenHolding + " holding a lock"
                            : ", holding nothing"), pad + em * 0.3, y, 0.75, hiddenHolding > 0, Sketch.Align.LEFT);
        }

        List<String> keys = new ArrayList<>();
        AdvisoryKey first = table.announcedKey(LockKeys.FIRST);
        AdvisoryKey second = table.announcedKey(LockKeys.SECOND);
        boolean collide = first != null && first.equals(second);
        if (collide) {
            keys.add("both invoices → one key " + first + " · collisions: " + table.collisions());
        } else {
            for (String name : resources.names()) {
                AdvisoryKey key = table.announcedKey(name);
                if (key != null) {
                    keys.add(name + " → key " + key);
                }
            }
        }
        keys.add("HikariCP pool of " + poolSize + (poolSize == 1 ? " connection" : " connections"));
        for (int i = 0; i < keys.size() && y + em * 1.25 <= bottom; i++) {
            y += em * 1.2;
            boolean last = i == keys.size() - 1;
            s.fill(collide && i == 0 ? Ink.RACE : last ? Ink.MUTED : Ink.TOKEN).text(keys.get(i), pad, y, 0.75,
                    collide && i == 0, Sketch.Align.LEFT);
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
        s.stroke(ink, hold == null ? 1 : orphan ? 3 : 2).strokeRoundRect(x, y, w, h, em * 0.4);
        s.fill(Ink.TEXT).text(name, x + em * 0.5, y + em * 1.2, 0.85, true, Sketch.Align.LEFT);
        if (hold == null) {
            s.fill(Ink.MUTED).text("holds no lock", x + w - em * 0.5, y + em * 1.2, 0.75, false, Sketch.Align.RIGHT);
            return;
        }
        s.fill(Ink.TOKEN).text("key " + shortKey(hold.key()) + " · " + hold.times() + "×", x + w - em * 0.5, y + em * 1.2,
                0.75, true, Sketch.Align.RIGHT);
        String who = hold.believed() == 0 ? ORPHANED + ": no worker owns it"
                : names(hold.believers()) + " believe" + (hold.believers().size() == 1 ? "s" : "") + " it"
                        + (orphan ? " · " + hold.leftBehind() + "× nobody's" : "");
        s.fill(orphan ? Ink.RACE : Ink.HOLDING).text(who, x + em * 0.5, y + em * 2.4, 0.75, orphan, Sketch.Align.LEFT);
    }

    /** A key short enough for a box: a 64-bit hash's nineteen digits cut to their first ten. */
    private static String shortKey(AdvisoryKey key) {
        String text = key.toString();
        return text.length() > 12 ? text.substring(0, 10) + "…" : text;
    }
}
