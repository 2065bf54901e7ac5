package dev.racelab.labs.philosophers;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Actor;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.engine.view.Sketch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The philosophers' table: each philosopher in the colour of what it is doing (thinking, hungry,
 * holding one fork, eating), each fork on the table or in the hand of whoever holds it, and, once
 * the oracle found one, the deadlock cycle drawn as arrows from each philosopher to the one it
 * waits for, or the starving philosophers ringed. Panels: the failure as the verdict names it,
 * every fork's holder and queue, meals and the longest hunger per philosopher, the hungriest.
 *
 * <p>Built from events only ({@code LOCK_*} per fork, state changes, the oracle's notes and
 * violations), so it shows the same live and in a replay. Meals and hunger are folded by the
 * oracle's own {@link Hunger}: live, a hunger still going counts up to the clock; once the
 * oracle measured for its verdict, up to that instant, so the numbers are the verdict's.
 * Owned by the thread that feeds it.
 */
final class TableView implements LabView {

    private final RunTracker tracker;
    /** Per philosopher (actor id): what it does at the table; gates' delays and halts do not change it. */
    private final Map<Integer, ActorState> atTable = new HashMap<>();
    /** Per philosopher: halted or delayed at a gate now. */
    private final Map<Integer, Boolean> held = new HashMap<>();
    /** Per philosopher holding one fork: which. */
    private final Map<Integer, String> oneFork = new HashMap<>();
    private final Hunger hunger = new Hunger();
    /** The latest instant seen, an event's or (live) the clock's: the "now" of a hunger still going. */
    private long nowNanos;
    /** The instant the oracle measured hunger for its verdict; 0 until then. */
    private long measuredAt;
    /** The deadlock cycle: waiter's actor id to the actor it waits for, in the cycle's order. */
    private final Map<Integer, Integer> cycle = new LinkedHashMap<>();
    /** Philosophers the oracle marked (deadlocked, livelocked, starving), and under which name. */
    private final Map<Integer, String> marked = new LinkedHashMap<>();
    /** The verdict's headline for a deadlock, livelock or starvation, as the oracle noted it. */
    private String failure;
    private long version;

    TableView(RunHeader header) {
        this.tracker = new RunTracker(header);
    }

    @Override
    public void accept(Event e) {
        boolean changed = false;
        if (e.kind() == EventKind.WAITS_FOR && e.actor() != Actor.RUN_ID) {
            cycle.put(e.actor(), (int) e.value());
            changed = true;
        } else if (e.kind() == EventKind.MEASURED && e.actor() == Actor.RUN_ID) {
            measuredAt = e.nanos();
            changed = true;
        } else if (e.kind() == EventKind.DIAGNOSIS && e.actor() == Actor.RUN_ID) {
            failure = e.subject();
            changed = true;
        } else if (e.kind() == EventKind.VIOLATION && e.actor() != Actor.RUN_ID) {
            marked.put(e.actor(), e.subject());
            changed = true;
        }
        if (measuredAt != 0) {
            // Measured for the verdict: keep the table as it was then, not as stopping the run left it.
            bump(changed);
            return;
        }
        nowNanos = Math.max(nowNanos, e.nanos());
        changed |= tracker.accept(e);
        changed |= hunger.accept(e);
        if (e.kind() == EventKind.STATE && e.actor() != Actor.RUN_ID) {
            changed |= followState(e);
        }
        // Live, a hunger still going grows with every event.
        bump(changed || e.kind() == EventKind.STATE);
    }

    /** Live, a hunger still going grows with the clock even when nobody records anything (a deadlock). */
    @Override
    public void live(long nanos) {
        if (measuredAt == 0 && nanos > nowNanos && hunger.hungrySince() != Long.MAX_VALUE) {
            nowNanos = nanos;
            version++;
        }
    }

    private void bump(boolean changed) {
        if (changed) {
            version++;
        }
    }

    private boolean followState(Event e) {
        ActorState state = e.state();
        int actor = e.actor();
        if (state == ActorState.DELAYED || state == ActorState.AT_GATE) {
            held.put(actor, true);
            return true;
        }
        held.put(actor, false);
        if (state == ActorState.HOLDING && e.subject() != null) {
            oneFork.put(actor, e.subject());
        }
        atTable.put(actor, state);
        return true;
    }

    @Override
    public long version() {
        return version;
    }

    /** The instant hunger is measured at: the verdict's, or live the latest event's. */
    private long asOf() {
        return measuredAt != 0 ? measuredAt : nowNanos;
    }

    @Override
    public List<Panel> panels() {
        List<Integer> philosophers = tracker.workerActors();
        List<Panel> panels = new ArrayList<>();
        if (failure != null) {
            panels.add(new Panel.Items(failureTitle(), List.of(new Panel.Item(failure, Ink.RACE)), ""));
        }
        List<List<String>> forks = new ArrayList<>();
        for (int k = 1; k <= philosophers.size(); k++) {
            String fork = PhilosophersScenario.fork(k);
            int holder = tracker.holder(fork);
            List<String> queue = new ArrayList<>();
            tracker.waiting(fork).forEach(actor -> queue.add(tracker.name(actor)));
            forks.add(List.of(fork, holder < 0 ? "on the table" : tracker.name(holder),
                    queue.isEmpty() ? "" : String.join(", ", queue)));
        }
        panels.add(new Panel.Table("Forks", List.of("fork", "held by", "waiting"), forks));
        List<List<String>> rows = new ArrayList<>();
        for (int actor : philosophers) {
            rows.add(List.of(shortName(actor), String.valueOf(hunger.meals(actor)), label(actor),
                    Hunger.words(hunger.longestNanos(actor, asOf()) / 1_000_000)));
        }
        panels.add(new Panel.Table("Meals", List.of("", "meals", "now", "longest hunger"), rows));
        panels.add(new Panel.Items("Hungriest", List.of(new Panel.Item(hungriestWords(tracker::name), Ink.HUNGRY)),
                ""));
        return panels;
    }

    /** "philosopher-3, 1183 ms (still hungry)"; "—" before anyone was hungry. */
    private String hungriestWords(java.util.function.IntFunction<String> name) {
        Hunger.Hungriest hungriest = hunger.hungriest(tracker.workerActors(), asOf());
        if (hungriest.actor() < 0 || hungriest.nanos() <= 0) {
            return "—";
        }
        return name.apply(hungriest.actor()) + ", " + Hunger.words(hungriest.millis())
                + (hungriest.ongoing() ? " (still hungry)" : "");
    }

    /** "Deadlock", "Livelock" or "Starvation", by the name of the oracle's marks. */
    private String failureTitle() {
        String mark = marked.values().stream().findFirst().orElse(PhilosophersScenario.DEADLOCKED);
        return switch (mark) {
            case PhilosophersScenario.LIVELOCKED -> "Livelock";
            case PhilosophersScenario.STARVING -> "Starvation";
            default -> "Deadlock";
        };
    }

    private String label(int actor) {
        ActorState state = atTable.getOrDefault(actor, ActorState.IDLE);
        String fork = oneFork.get(actor);
        String text = state == ActorState.HOLDING ? "holds " + (fork == null ? "a fork" : fork) : state.label();
        return held.getOrDefault(actor, false) ? text + ", at a gate" : text;
    }

    /** "P3" for philosopher-3, as on the table. */
    private String shortName(int actor) {
        String name = tracker.name(actor);
        return "P" + name.substring(name.lastIndexOf('-') + 1);
    }

    @Override
    public boolean hasPicture() {
        return true;
    }

    @Override
    public void draw(Sketch sketch) {
        List<Integer> philosophers = tracker.workerActors();
        int n = philosophers.size();
        if (n == 0) {
            return;
        }
        // Two lines of captions at the top (the failure, the hungriest), always, so the table does not jump.
        double top = sketch.em() * 3;
        double cx = sketch.width() / 2;
        double cy = top + (sketch.height() - top) / 2;
        double table = Math.min(sketch.width(), sketch.height() - top) * 0.30;
        double seat = table * 1.22;
        double r = Math.max(sketch.em() * 0.6, Math.min(sketch.em() * 1.6, seat * Math.sin(Math.PI / n) * 0.55));

        sketch.fill(Ink.SURFACE).fillCircle(cx, cy, table);
        sketch.stroke(Ink.OUTLINE, 1.5).strokeCircle(cx, cy, table);

        Map<Integer, double[]> at = new HashMap<>();
        for (int i = 0; i < n; i++) {
            double angle = angleOf(i, n);
            at.put(philosophers.get(i), new double[] {cx + seat * Math.cos(angle), cy + seat * Math.sin(angle)});
        }
        for (int k = 1; k <= n; k++) {
            drawFork(sketch, k, n, cx, cy, table, r, philosophers);
        }
        for (int i = 0; i < n; i++) {
            int actor = philosophers.get(i);
            double[] p = at.get(actor);
            ActorState state = atTable.getOrDefault(actor, ActorState.IDLE);
            sketch.fill(Ink.of(state)).fillCircle(p[0], p[1], r);
            boolean isMarked = marked.containsKey(actor);
            sketch.stroke(isMarked ? Ink.HIGHLIGHT : held.getOrDefault(actor, false) ? Ink.AT_GATE : Ink.OUTLINE,
                    isMarked ? 3 : 1.5).strokeCircle(p[0], p[1], r);
            sketch.fill(Ink.TEXT).text("P" + (i + 1), p[0], p[1] + sketch.em() * 0.35, 1.0, true, Sketch.Align.CENTER);
            double below = p[1] + r + sketch.em() * 1.1;
            int meals = hunger.meals(actor);
            sketch.fill(Ink.MUTED).text(meals + (meals == 1 ? " meal" : " meals"), p[0], below, 0.8, false,
                    Sketch.Align.CENTER);
        }
        if (!cycle.isEmpty()) {
            sketch.stroke(Ink.HIGHLIGHT, 3);
            cycle.forEach((waiter, holder) -> {
                double[] from = at.get(waiter);
                double[] to = at.get(holder);
                if (from != null && to != null) {
                    double dx = to[0] - from[0];
                    double dy = to[1] - from[1];
                    double length = Math.hypot(dx, dy);
                    double ux = dx / length;
                    double uy = dy / length;
                    sketch.arrow(from[0] + ux * r, from[1] + uy * r, to[0] - ux * r, to[1] - uy * r);
                }
            });
        }
        double line = sketch.em() * 1.4;
        if (failure != null) {
            sketch.fill(Ink.RACE).text(caption(), sketch.em() * 0.6, line, 1.0, true, Sketch.Align.LEFT);
            line += sketch.em() * 1.3;
        }
        String hungriest = hungriestWords(this::shortName);
        if (!hungriest.equals("—")) {
            sketch.fill(Ink.TEXT).text("hungriest: " + hungriest, sketch.em() * 0.6, line, 0.8, false,
                    Sketch.Align.LEFT);
        }
    }

    /** The failure in a few words for the picture: "deadlock: 5 philosophers in a cycle". */
    private String caption() {
        if (!cycle.isEmpty()) {
            return "deadlock: " + PhilosophersScenario.cycleWords(cycle.size());
        }
        int cut = failure.indexOf(';');
        return cut < 0 ? failure : failure.substring(0, cut);
    }

    /** Philosopher {@code i} (0-based) sits at this angle, the first at the top, going clockwise. */
    private static double angleOf(double i, int n) {
        return -Math.PI / 2 + 2 * Math.PI * i / n;
    }

    /**
     * Fork {@code k} lies between philosopher {@code k-1} and {@code k} (it is philosopher k's
     * left fork); when held it is drawn in its holder's hand, on the side it came from.
     */
    private void drawFork(Sketch sketch, int k, int n, double cx, double cy, double table, double r,
                          List<Integer> philosophers) {
        String fork = PhilosophersScenario.fork(k);
        int holder = tracker.holder(fork);
        double angle = angleOf(k - 1.5, n);
        double inner = table * 0.62;
        double outer = table * 0.92;
        Ink ink = Ink.MUTED;
        if (holder >= 0) {
            int seat = philosophers.indexOf(holder);
            boolean isLeftFork = seat == k - 1;
            angle = angleOf(seat + (isLeftFork ? -0.28 : 0.28), n);
            inner = table * 1.22 - r * 2.2;
            outer = table * 1.22 - r * 1.05;
            ink = marked.containsKey(holder) ? Ink.HIGHLIGHT : Ink.HOLDING;
        }
        double cos = Math.cos(angle);
        double sin = Math.sin(angle);
        sketch.stroke(ink, 3).line(cx + inner * cos, cy + inner * sin, cx + outer * cos, cy + outer * sin);
        double label = inner - sketch.em() * 0.8;
        sketch.fill(Ink.MUTED).text(String.valueOf(k), cx + label * cos, cy + label * sin + sketch.em() * 0.3, 0.7,
                false, Sketch.Align.CENTER);
    }
}
