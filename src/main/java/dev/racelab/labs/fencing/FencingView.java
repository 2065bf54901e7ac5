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
import java.util.Deque;
import java.util.List;

/**
 * The fencing lab's state: the book as PostgreSQL holds it (price and the token that wrote it),
 * the token counter, the highest token handed out and who holds it, and the latest writes in
 * order — accepted, rejected as stale, or stale and applied anyway.
 */
final class FencingView implements LabView {

    private static final int RECENT = 14;
    /** The key figure's name on screen, the oracle's name for it. */
    static final String STALE_LABEL = FencingScenario.STALE;

    private record Write(long token, String worker, Outcome outcome) {
    }

    private enum Outcome { ACCEPTED, REJECTED, STALE }

    private final RunTracker tracker;
    private final Deque<Write> recent = new ArrayDeque<>();
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
        switch (event.kind()) {
            case WRITE_ACCEPTED -> remember(new Write(event.value(), tracker.name(event.actor()), Outcome.ACCEPTED));
            case WRITE_REJECTED -> remember(new Write(event.value(), tracker.name(event.actor()), Outcome.REJECTED));
            case VIOLATION -> {
                if (FencingScenario.STALE.equals(event.subject())) {
                    stale++;
                    markLastStale(tracker.name(event.actor()));
                }
            }
            default -> {
            }
        }
    }

    private void remember(Write write) {
        recent.addFirst(write);
        while (recent.size() > RECENT) {
            recent.removeLast();
        }
    }

    private void markLastStale(String worker) {
        for (Write write : recent) {
            if (write.worker().equals(worker) && write.outcome() == Outcome.ACCEPTED) {
                recent.remove(write);
                recent.addFirst(new Write(write.token(), worker, Outcome.STALE));
                return;
            }
        }
    }

    @Override
    public void concluded(dev.racelab.engine.Outcome outcome) {
        tracker.concluded(outcome);
    }

    @Override
    public long version() {
        return tracker.version() + stale;
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
        s.fill(Ink.MUTED).text("latest writes, newest first", pad, stripY - em * 0.4, 0.8, false, Sketch.Align.LEFT);
        double chip = em * 2.4;
        double x = pad;
        double rowY = stripY;
        for (Write write : recent) {
            if (x + chip > w - pad) {
                x = pad;
                rowY += chip + em * 0.4;
                if (rowY + chip > s.height()) {
                    break;
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
        double legendY = Math.min(s.height() - em * 0.4, rowY + chip + em * 1.4);
        s.fill(Ink.MUTED).text("green: accepted · pale: rejected as stale · orange: stale, yet applied", pad,
                legendY, 0.7, false, Sketch.Align.LEFT);
    }
}
