package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.Growable;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.Sketch.Align;
import dev.racelab.engine.view.timeline.paint.TimelineSurface.Baseline;

/**
 * The words written on the lanes, over their colours: what a server lane read, the state of a
 * worker's long segments (the gate it waits at, the lock it holds), and the values of its markers,
 * each only where it fits whole and reads.
 *
 * <p>One thread at a time, as its {@link TimelinePainter}.
 */
final class LaneWords {

    private final TimelineLayout frame;
    private PaintColours colours;

    LaneWords(TimelineLayout frame, PaintColours colours) {
        this.frame = frame;
        this.colours = colours;
    }

    void colours(PaintColours next) {
        colours = next;
    }

    /**
     * What a server lane with nothing to show says: once the server was read, that nothing was held
     * or awaited (a lane of values always shows its first read), as the lock panels say it.
     */
    static String quiet(Lane lane) {
        return lane.sampleTime.size() > 0 ? "no lock held or awaited" : "not read yet";
    }

    void drawServerLabels(TimelineSurface gc, Lane lane, double y, double laneH) {
        int n = lane.labelStart.size();
        if (n == 0) {
            gc.text(quiet(lane), frame.gutter() + 6, y + laneH / 2 - 1, frame.em() * 0.8, false, Align.LEFT,
                    Baseline.CENTER, colours.of(Ink.MUTED), 0);
            return;
        }
        double width = frame.lanesWidth();
        double left = frame.gutter();
        int first = Math.max(0, lane.labelStart.floor((long) frame.viewStart));
        double end = frame.viewStart + width * frame.nanosPerPixel;
        double px = frame.em() * (laneH < frame.em() * 1.5 ? 0.7 : 0.85);
        double lastTextEnd = -1;
        for (int s = first; s < n; s++) {
            long start = lane.labelStart.get(s);
            if (start > end) {
                break;
            }
            // Never back past where this turn began: a crafted file can give labels one start, and
            // each turn must end ahead of the last.
            int begun = s;
            s = lastInColumn(lane.labelStart, s);
            while (s > begun && lane.labelStale.get(s) != 0 && lane.labelStart.get(s - 1) >= start) {
                s--;
            }
            start = lane.labelStart.get(s);
            int from = s;
            s = lane.sameLabelUntil(s, (long) end);
            long stop = frame.model.labelStop(lane, s);
            double x0 = Math.max(left, frame.xOf(start));
            double x1 = Math.min(left + width, frame.xOf(stop));
            if (x1 - x0 < 0.5) {
                continue;
            }
            // Whole words or none: the full label, else its short form, else only the colour (the
            // hover has the words). A label cut mid-word ("3 wait…") reads as something else.
            String text = whole(lane.labelText.get(from), lane.labelShort.get(from), x1 - Math.max(x0, lastTextEnd) - 8);
            if (text != null) {
                gc.text(text, Math.max(x0, left) + 4, y + laneH / 2 - 1, px, false, Align.LEFT, Baseline.CENTER,
                        colours.of(Ink.TEXT), 0);
                lastTextEnd = x1;
            }
        }
    }

    /**
     * The last of {@code starts} from {@code s} on that begins in the same pixel column as {@code s}:
     * those before it end inside that column, too narrow for a word.
     */
    private int lastInColumn(Growable.Longs starts, int s) {
        if (s + 1 >= starts.size() || starts.get(s + 1) - starts.get(s) >= frame.nanosPerPixel) {
            return s;
        }
        double column = Math.floor((starts.get(s) - frame.viewStart) / frame.nanosPerPixel);
        long nextColumn = (long) Math.ceil(frame.viewStart + (column + 1) * frame.nanosPerPixel);
        return Math.max(s, starts.floor(nextColumn - 1));
    }

    /** The longest of {@code text} and {@code shorter} that fits whole in {@code pixels}, or null. */
    private String whole(String text, String shorter, double pixels) {
        int chars = (int) (pixels / (frame.em() * 0.48));
        if (text != null && text.length() <= chars) {
            return text;
        }
        return shorter != null && shorter.length() <= chars ? shorter : null;
    }

    /** Names long segments where they are wide enough: the gate a worker waits at, the lock it holds. */
    void drawSegmentWords(TimelineSurface gc, Lane lane, double y, double laneH) {
        int n = lane.segStart.size();
        double width = frame.lanesWidth();
        double minWidth = frame.em() * 7;
        if (n == 0 || width / Math.max(1, n) > 1e9) {
            return;
        }
        int first = Math.max(0, lane.segStart.floor((long) frame.viewStart));
        double end = frame.viewStart + width * frame.nanosPerPixel;
        double px = frame.em() * 0.75;
        int drawn = 0;
        int lastInView = lane.segStart.floor((long) end);
        long longEnough = (long) (minWidth * frame.nanosPerPixel);
        for (int s = first; s < n && drawn < 200; s++) {
            // Only a segment wide enough for words is worth a look: on to the next one that is.
            s = lane.nextLongSegment(s, lastInView, longEnough, frame.now);
            if (s < 0) {
                break;
            }
            long start = lane.segStart.get(s);
            if (start > end) {
                break;
            }
            long stop = s + 1 < n ? lane.segStart.get(s + 1) : frame.now;
            double x0 = Math.max(frame.gutter(), frame.xOf(start));
            double x1 = Math.min(frame.gutter() + width, frame.xOf(stop));
            if (x1 - x0 < minWidth) {
                continue;
            }
            ActorState state = Lane.STATES[lane.segState.get(s)];
            if (state.pattern() == ActorState.Pattern.NONE) {
                continue;
            }
            String text = state.describe(lane.segSubject.get(s));
            int background = colours.of(state.ink());
            String fitted = fit(text, x1 - x0 - 10);
            if (fitted.isEmpty()) {
                continue;
            }
            int ink;
            if (state.pattern() == ActorState.Pattern.BARRED) {
                gc.fillRoundRect(x0 + 3, y + laneH * 0.14, fitted.length() * frame.em() * 0.45 + 8, laneH * 0.56, 6,
                        colours.background());
                ink = colours.of(Ink.TEXT);
            } else {
                ink = state.pattern() == ActorState.Pattern.HATCHED ? colours.of(Ink.TEXT) : PaintColours.textOn(background);
            }
            gc.text(fitted, x0 + 5, y + laneH * 0.42, px, false, Align.LEFT, Baseline.CENTER, ink, 0);
            drawn++;
        }
    }

    /** {@code text}, cut with an ellipsis to about {@code pixels} wide (no clipping: clips cost a canvas state copy). */
    private String fit(String text, double pixels) {
        int chars = (int) (pixels / (frame.em() * 0.48));
        if (chars >= text.length()) {
            return text;
        }
        if (chars < 4) {
            return "";
        }
        // Cut between words where one ends late enough: "waits: counter…", not "waits: counter r…".
        int space = text.lastIndexOf(' ', chars - 1);
        return text.substring(0, space >= chars / 2 ? space : chars - 1) + "…";
    }

    /**
     * Writes the values of markers where they are sparse enough to read (the marks themselves are
     * painted into the lane's pixels by {@link MarkerSprites}).
     */
    void drawMarkers(TimelineSurface gc, Lane lane, double y, double laneH) {
        int n = lane.markTime.size();
        if (n == 0 || laneH < frame.em() * 1.5 || lane.kind != Actor.Kind.WORKER) {
            return;
        }
        double width = frame.lanesWidth();
        double left = frame.gutter();
        double end = frame.viewStart + width * frame.nanosPerPixel;
        int first = Math.max(0, lane.markTime.floor((long) frame.viewStart));
        int last = lane.markTime.floor((long) end);
        if (last - first > width / (frame.em() * 2.5)) {
            return;
        }
        double textEnd = -1e9;
        double px = frame.em() * 0.7;
        for (int m = first; m <= last && m < n; m++) {
            long t = lane.markTime.get(m);
            double x = frame.xOf(t);
            if (t < frame.viewStart || x < left || x <= textEnd + frame.em() * 0.3) {
                continue;
            }
            EventKind kind = Lane.KINDS[lane.markKind.get(m)];
            String text = kind.valueLabel(lane.markValue.get(m));
            if (text == null) {
                continue;
            }
            if (kind.labelAbove()) {
                gc.text(text, x, y + laneH * 0.22 + frame.em() * 0.35, px, true, Align.CENTER, Baseline.BOTTOM,
                        colours.of(kind.ink()), 0);
                textEnd = x + text.length() * frame.em() * 0.21 + frame.em() * 0.6;
            } else {
                double textW = text.length() * frame.em() * 0.42 + 6;
                gc.fillRoundRect(x + 2, y + laneH * 0.62, textW, laneH * 0.36, 5,
                        PaintColours.derived(colours.background(), 1, 0.92));
                gc.text(text, x + 5, y + laneH - 3, px, true, Align.LEFT, Baseline.BOTTOM, colours.of(kind.ink()), 0);
                textEnd = x + textW + 2;
            }
        }
    }
}
