package dev.racelab.labs.fencing;

import dev.racelab.engine.Event;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.engine.view.Sketch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fencing lab's state: the book as PostgreSQL holds it (price and the token that wrote it),
 * the token counter, the highest token handed out and who holds it, the latest writes to land on
 * the book, newest first (accepted, or stale and applied anyway), and the latest rejected as stale.
 *
 * <p>The writes that landed are in the order PostgreSQL committed them, the order the banner's
 * "last write to land" speaks of: each accepted write's note says which write it replaced (the
 * book's trigger), and following those from the seeded price gives the book's history. The order
 * the replies came back in is another: a client can hear back after one that committed later.
 * A write whose predecessor is not on the record yet (live, its client not heard back) stands
 * first, as the newest; so do all of a recording made before the notes, in the order of replies.
 */
final class FencingView implements LabView {

    private static final int RECENT = 14;
    private static final int RECENT_REJECTED = 7;
    /** The key figure's name on screen, the oracle's name for it. */
    static final String STALE_LABEL = FencingScenario.STALE;

    private record Write(long token, String worker, Outcome outcome) {
    }

    private enum Outcome { ACCEPTED, REJECTED, STALE }

    private final RunTracker tracker;
    /** Accepted writes by token, in the order their replies came. */
    private final Map<Long, Write> landed = new LinkedHashMap<>();
    /** Per token: the token of the write that replaced it, in the book's order of commits. */
    private final Map<Long, Long> replacedBy = new HashMap<>();
    /** Per worker (actor): its last accepted write's token, which its next note speaks of. */
    private final Map<Integer, Long> lastAccepted = new HashMap<>();
    private final Deque<Write> rejected = new ArrayDeque<>();
    private long stale;

    FencingView(RunHeader header) {
        this.tracker = new RunTracker(header);
        tracker.finalValue(FencingScenario.PRICE, "finalPrice");
        tracker.finalValue(FencingScenario.BOOK_TOKEN, "finalToken");
        tracker.finalValue(FencingScenario.LATEST_TOKEN, "maxToken");
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
        String worker = tracker.name(event.actor());
        switch (event.kind()) {
            case WRITE_ACCEPTED -> {
                landed.put(event.value(), new Write(event.value(), worker, Outcome.ACCEPTED));
                lastAccepted.put(event.actor(), event.value());
            }
            case REPLACED -> {
                Long token = lastAccepted.get(event.actor());
                if (token != null) {
                    replacedBy.put(event.value(), token);
                }
            }
            case WRITE_REJECTED -> {
                rejected.addFirst(new Write(event.value(), worker, Outcome.REJECTED));
                while (rejected.size() > RECENT_REJECTED) {
                    rejected.removeLast();
                }
            }
            case VIOLATION -> {
                Long token = lastAccepted.get(event.actor());
                if (FencingScenario.STALE.equals(event.subject()) && token != null) {
                    stale++;
                    landed.put(token, new Write(token, worker, Outcome.STALE));
                }
            }
            default -> {
            }
        }
    }

    /** The latest writes that landed, newest first: the book's order of commits (see the class comment). */
    private List<Write> latestLanded() {
        List<Write> history = new ArrayList<>();
        Set<Long> placed = new HashSet<>();
        Long token = replacedBy.get(0L);
        while (token != null && landed.containsKey(token) && placed.add(token)) {
            history.add(landed.get(token));
            token = replacedBy.get(token);
        }
        // Writes the book's chain does not place (a recording older than its notes): newest first.
        List<Write> newest = new ArrayList<>(landed.values().stream().filter(w -> !placed.contains(w.token())).toList());
        Collections.reverse(newest);
        for (int i = history.size() - 1; i >= 0 && newest.size() < RECENT; i--) {
            newest.add(history.get(i));
        }
        return newest.subList(0, Math.min(RECENT, newest.size()));
    }

    @Override
    public void concluded(dev.racelab.engine.Outcome outcome) {
        tracker.concluded(outcome);
    }

    @Override
    public long version() {
        return tracker.version() + stale + landed.size() + replacedBy.size() + rejected.size();
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        panels.add(new Panel.Values("The book (PostgreSQL)", List.of(
                value("price", tracker.serverValue(FencingScenario.PRICE)),
                value("token that wrote it", tracker.serverValue(FencingScenario.BOOK_TOKEN)),
                value("fencing_tokens counter", tracker.serverValue(FencingScenario.LATEST_TOKEN)))));
        int holder = tracker.maxTokenHolder();
        panels.add(new Panel.Values("Writes", List.of(
                new Panel.Value("newest token", tracker.maxToken() < 0 ? "—"
                        : "#" + tracker.maxToken() + " · " + tracker.name(holder), Ink.TOKEN),
                new Panel.Value("all writes applied", String.valueOf(tracker.accepted()), Ink.TEXT),
                new Panel.Value("rejected as stale", String.valueOf(tracker.rejected()), Ink.TEXT),
                new Panel.Value(STALE_LABEL, String.valueOf(stale), stale > 0 ? Ink.RACE : Ink.SAFE))));
        panels.add(tracker.tokensPanel("Each client's latest token"));
        panels.add(tracker.serverLocksPanel("Row locks, as pg_locks reports them"));
        return panels;
    }

    private static Panel.Value value(String label, Long value) {
        return new Panel.Value(label, value == null ? "—" : String.valueOf(value), Ink.TEXT);
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
        Long price = tracker.serverValue(FencingScenario.PRICE);
        Long bookToken = tracker.serverValue(FencingScenario.BOOK_TOKEN);
        Long counter = tracker.serverValue(FencingScenario.LATEST_TOKEN);

        double bookW = (w - 3 * pad) * 0.58;
        double boxH = em * 5.2;
        double y = pad * 0.8;
        s.card(pad, y, bookW, boxH);
        s.fill(Ink.MUTED).text("racelab.books", pad + em * 0.6, y + em * 1.2, 0.8, false, Sketch.Align.LEFT);
        s.fill(Ink.TEXT).text("price " + (price == null ? "—" : price), pad + em * 0.6, y + em * 3.1, 1.6, true,
                Sketch.Align.LEFT);
        s.fill(Ink.TOKEN).text("written with token #" + (bookToken == null ? "—" : bookToken), pad + em * 0.6,
                y + em * 4.5, 0.85, false, Sketch.Align.LEFT);

        double tokenX = 2 * pad + bookW;
        double tokenW = w - tokenX - pad;
        s.card(tokenX, y, tokenW, boxH);
        s.fill(Ink.MUTED).text("fencing_tokens", tokenX + em * 0.6, y + em * 1.2, 0.8, false, Sketch.Align.LEFT);
        s.fill(Ink.TOKEN).text("#" + (counter == null ? "—" : counter), tokenX + tokenW / 2, y + em * 3.4, 1.8, true,
                Sketch.Align.CENTER);
        s.fill(Ink.MUTED).text("latest handed out", tokenX + tokenW / 2, y + em * 4.6, 0.75, false,
                Sketch.Align.CENTER);

        double countY = y + boxH + em * 1.6;
        s.fill(stale > 0 ? Ink.RACE : Ink.SAFE).text(STALE_LABEL + ": " + stale, pad, countY, 1.1, true,
                Sketch.Align.LEFT);
        double stripY = countY + em * 1.9;
        s.fill(Ink.MUTED).text("latest writes to land on the book, newest first", pad, stripY - em * 0.4, 0.8, false,
                Sketch.Align.LEFT);
        double rowY = chips(s, latestLanded(), stripY);
        if (!rejected.isEmpty() && rowY + em * 4.4 < s.height()) {
            double rejectedY = rowY + em * 1.6;
            s.fill(Ink.MUTED).text("latest rejected as stale, newest first", pad, rejectedY - em * 0.4, 0.8, false,
                    Sketch.Align.LEFT);
            rowY = chips(s, List.copyOf(rejected), rejectedY);
        }
        double legendY = Math.min(s.height() - em * 0.4, rowY + em * 1.4);
        s.fill(Ink.MUTED).text("green: accepted · pale: rejected as stale · orange: stale, yet applied", pad,
                legendY, 0.7, false, Sketch.Align.LEFT);
    }

    /** Draws {@code writes} as chips in rows from {@code y}, as many as fit; returns where the last row ends. */
    private static double chips(Sketch s, List<Write> writes, double y) {
        double em = s.em();
        double pad = em;
        double chip = em * 2.4;
        double x = pad;
        double rowY = y;
        for (Write write : writes) {
            if (x + chip > s.width() - pad) {
                x = pad;
                rowY += chip + em * 0.4;
                if (rowY + chip > s.height()) {
                    return rowY - em * 0.4;
                }
            }
            Ink fill = switch (write.outcome()) {
                case ACCEPTED -> Ink.SAFE;
                case REJECTED -> Ink.SURFACE;
                case STALE -> Ink.RACE;
            };
            s.fill(fill).fillRoundRect(x, rowY, chip, chip, em * 0.3);
            s.stroke(Ink.OUTLINE, 1).strokeRoundRect(x, rowY, chip, chip, em * 0.3);
            s.fill(write.outcome() == Outcome.REJECTED ? Ink.TEXT : Ink.SURFACE)
                    .text("#" + write.token(), x + chip / 2, rowY + chip * 0.48, 0.75, true, Sketch.Align.CENTER);
            String mark = switch (write.outcome()) {
                case ACCEPTED -> "ok";
                case REJECTED -> "no";
                case STALE -> "stale";
            };
            s.text(mark, x + chip / 2, rowY + chip * 0.85, 0.6, false, Sketch.Align.CENTER);
            x += chip + em * 0.35;
        }
        return rowY + chip;
    }
}
