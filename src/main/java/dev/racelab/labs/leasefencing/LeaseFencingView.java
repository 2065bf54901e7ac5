package dev.racelab.labs.leasefencing;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.engine.view.Sketch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lease-fencing lab's state, as the two servers and the clients each tell it: who Redis says
 * holds the lock (and with which lease), which clients believe they hold it, and what PostgreSQL's
 * record holds (the token of the write that stands, the writes it rejected). The picture
 * stacks them as the story goes: Redis on top, the clients between, PostgreSQL below; a client
 * that believes it holds the lock while Redis says otherwise is drawn in the race's colour.
 */
final class LeaseFencingView implements LabView {

    /** The key figure's name on screen: the oracle's name for it. */
    static final String STALE_LABEL = LeaseFencingScenario.STALE;
    static final String TWO_HOLDERS_LABEL = "two holders at once";

    private final RunTracker tracker;
    /** Per client actor: the token of the lease it believes it holds (from its token to its release). */
    private final Map<Integer, Long> believes = new TreeMap<>();
    private long stale;
    private long twoHolders;
    private long changes;
    /** Whether the servers were read in this run (the window's runs; the command line's are not). */
    private boolean observed;

    LeaseFencingView(RunHeader header) {
        this.tracker = new RunTracker(header);
        tracker.finalValue(LeaseFencingScenario.TOKEN, "finalToken");
        tracker.finalValue(LeaseFencingScenario.REJECTED, "rejectedWrites");
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
        switch (event.kind()) {
            case TOKEN -> believes.put(event.actor(), event.value());
            case LOCK_RELEASED -> believes.remove(event.actor());
            case TWO_HOLDERS -> twoHolders++;
            case SERVER_SAMPLE -> {
                if (observed) {
                    return;
                }
                observed = true;
            }
            case VIOLATION -> {
                if (STALE_LABEL.equals(event.subject())) {
                    stale++;
                }
            }
            default -> {
                return;
            }
        }
        changes++;
    }

    @Override
    public void concluded(Outcome outcome) {
        tracker.concluded(outcome);
    }

    @Override
    public long version() {
        return tracker.version() + changes;
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        int holder = redisHolder();
        panels.add(new Panel.Values("The lock (Redis)", List.of(
                new Panel.Value("held by", !observed ? "not read" : holder < 0 ? "nobody" : tracker.name(holder),
                        Ink.HOLDING),
                new Panel.Value("its lease", holder < 0 ? "—" : tracker.worker(holder).serverHolds().replace("lease ", ""),
                        Ink.TOKEN),
                new Panel.Value("latest token", tracker.maxToken() < 0 ? "—"
                        : "#" + tracker.maxToken() + " · " + tracker.name(tracker.maxTokenHolder()), Ink.TOKEN))));
        List<Panel.Item> believers = new ArrayList<>();
        believes.forEach((actor, token) -> believers.add(observed && actor != holder
                ? new Panel.Item(tracker.name(actor) + " · lease #" + token + " · Redis: no longer", Ink.RACE)
                : new Panel.Item(tracker.name(actor) + " · lease #" + token, Ink.HOLDING)));
        panels.add(new Panel.Items("Who believes it holds the lock", believers, "nobody"));
        panels.add(new Panel.Values("The record (PostgreSQL)", List.of(
                value("token that wrote it", tracker.serverValue(LeaseFencingScenario.TOKEN)),
                value("rejected writes", tracker.serverValue(LeaseFencingScenario.REJECTED)))));
        panels.add(new Panel.Values("Writes", List.of(
                new Panel.Value("accepted", String.valueOf(tracker.accepted()), Ink.TEXT),
                new Panel.Value("rejected as stale", String.valueOf(tracker.rejected()), Ink.TEXT),
                new Panel.Value(TWO_HOLDERS_LABEL, String.valueOf(twoHolders), Ink.TEXT),
                new Panel.Value(STALE_LABEL, String.valueOf(stale), stale > 0 ? Ink.RACE : Ink.SAFE))));
        panels.add(tracker.tokensPanel("Each client's latest token"));
        return panels;
    }

    private static Panel.Value value(String label, Long value) {
        return new Panel.Value(label, value == null ? "—" : String.valueOf(value), Ink.TEXT);
    }

    /** The worker Redis names as the lock's holder, or -1. */
    private int redisHolder() {
        for (int actor : tracker.workerActors()) {
            if (tracker.worker(actor).serverHolds() != null) {
                return actor;
            }
        }
        return -1;
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
        double cardW = w - 2 * pad;
        double cardH = em * 4.4;
        double x = pad;
        double y = pad * 0.6;

        int holder = redisHolder();
        s.card(x, y, cardW, cardH);
        s.fill(Ink.MUTED).text("Redis · the lock", x + em * 0.6, y + em * 1.2, 0.8, false, Sketch.Align.LEFT);
        s.fill(holder < 0 ? Ink.TEXT : Ink.HOLDING).text(!observed ? "not read in this run"
                        : holder < 0 ? "nobody holds it" : tracker.name(holder) + " holds it",
                x + em * 0.6, y + em * 2.8, 1.3, true, Sketch.Align.LEFT);
        s.fill(Ink.TOKEN).text(holder < 0
                        ? (tracker.maxToken() < 0 ? "no lease yet" : "latest lease #" + tracker.maxToken())
                        : tracker.worker(holder).serverHolds(),
                x + em * 0.6, y + em * 3.9, 0.85, false, Sketch.Align.LEFT);

        double chipsY = y + cardH + em * 0.9;
        double chipH = em * 3.6;
        List<Integer> clients = tracker.workerActors();
        int shown = (int) Math.max(1, Math.min(clients.size(), Math.floor((cardW + em * 0.5) / (em * 7.5))));
        double chipW = (cardW - (shown - 1) * em * 0.5) / shown;
        for (int i = 0; i < shown && i < clients.size(); i++) {
            drawClient(s, clients.get(i), x + i * (chipW + em * 0.5), chipsY, chipW, chipH, holder);
        }

        double pgY = chipsY + chipH + em * 0.9;
        Long token = tracker.serverValue(LeaseFencingScenario.TOKEN);
        Long rejected = tracker.serverValue(LeaseFencingScenario.REJECTED);
        s.card(x, pgY, cardW, cardH);
        s.fill(Ink.MUTED).text("PostgreSQL · the record", x + em * 0.6, pgY + em * 1.2, 0.8, false, Sketch.Align.LEFT);
        s.fill(Ink.TOKEN).text(token == null ? "not read in this run" : token == 0 ? "nothing written yet"
                        : "written with token #" + token,
                x + em * 0.6, pgY + em * 2.8, 1.3, true, Sketch.Align.LEFT);
        s.fill(Ink.TEXT).text("rejected writes: " + (rejected == null ? "—" : rejected), x + em * 0.6, pgY + em * 3.9,
                0.85, false, Sketch.Align.LEFT);

        double countY = pgY + cardH + em * 1.6;
        s.fill(stale > 0 ? Ink.RACE : Ink.SAFE).text(STALE_LABEL + ": " + stale, pad, countY, 1.1, true,
                Sketch.Align.LEFT);
        s.fill(Ink.TEXT).text(TWO_HOLDERS_LABEL + ": " + twoHolders, pad, countY + em * 1.4, 0.85, true,
                Sketch.Align.LEFT);
    }

    /** One client: its name, the token it holds or last held, and whether Redis agrees that it holds the lock. */
    private void drawClient(Sketch s, int actor, double x, double y, double w, double h, int redisHolder) {
        double em = s.em();
        RunTracker.WorkerInfo info = tracker.worker(actor);
        Long belief = believes.get(actor);
        Ink ink;
        String status;
        if (belief != null && observed && actor != redisHolder) {
            ink = Ink.RACE;
            status = "thinks it holds it";
        } else if (belief != null) {
            ink = Ink.HOLDING;
            status = observed ? "holds the lock" : "believes it holds it";
        } else if (info.state() == ActorState.WAITING) {
            ink = Ink.WAITING;
            status = "waits";
        } else {
            ink = Ink.MUTED;
            status = info.state().label();
        }
        s.fill(Ink.SURFACE).fillRoundRect(x, y, w, h, em * 0.4);
        s.stroke(ink, belief != null ? 2.5 : 1).strokeRoundRect(x, y, w, h, em * 0.4);
        s.fill(Ink.TEXT).text(tracker.name(actor), x + em * 0.5, y + em * 1.2, 0.85, true, Sketch.Align.LEFT);
        if (info.token() >= 0) {
            s.fill(Ink.TOKEN).text("#" + (belief != null ? belief : info.token()), x + w - em * 0.5, y + em * 1.2, 0.85,
                    true, Sketch.Align.RIGHT);
        }
        s.fill(ink).text(status, x + em * 0.5, y + em * 2.8, 0.8, belief != null, Sketch.Align.LEFT);
    }
}
