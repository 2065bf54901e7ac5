package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;

/**
 * What is drawn across lanes: arrows from a cause to its effect, arrows from an overwriting write
 * back to the writes it wiped out, and the ring around the violation the user asked to see.
 *
 * <p>One thread at a time, as its {@link TimelinePainter}.
 */
final class TimelineOverlays {

    private final TimelineLayout frame;
    private PaintColours colours;

    TimelineOverlays(TimelineLayout frame, PaintColours colours) {
        this.frame = frame;
        this.colours = colours;
    }

    void colours(PaintColours next) {
        colours = next;
    }

    void drawArrows(TimelineSurface gc, double laneH, double top) {
        int n = frame.model.arrowToTime.size();
        if (n == 0) {
            return;
        }
        double end = frame.viewStart + frame.lanesWidth() * frame.nanosPerPixel;
        int first = Math.max(0, frame.model.arrowToTime.floor((long) frame.viewStart));
        int ink = PaintColours.derived(colours.of(EventKind.WOKEN.ink()), 0.85, 0.75);
        double lastX = -1e9;
        for (int a = first; a < n; a++) {
            long to = frame.model.arrowToTime.get(a);
            if (to > end) {
                break;
            }
            double x2 = frame.xOf(to);
            if (x2 - lastX < 6) {
                // Too close to the last one drawn: on to the first far enough from it.
                long far = (long) Math.ceil(frame.viewStart + (lastX + 6 - frame.gutter()) * frame.nanosPerPixel);
                a = Math.max(a, frame.model.arrowToTime.floor(far - 1));
                continue;
            }
            int fromPos = frame.positionOf(frame.model.arrowFromLane.get(a));
            int toPos = frame.positionOf(frame.model.arrowToLane.get(a));
            if (fromPos < 0 || toPos < 0) {
                continue;
            }
            double x1 = Math.max(frame.gutter(), frame.xOf(frame.model.arrowFromTime.get(a)));
            double y1 = top + fromPos * laneH - frame.scrollY + laneH * 0.4;
            double y2 = top + toPos * laneH - frame.scrollY + laneH * 0.4;
            if (Math.max(y1, y2) < top || Math.min(y1, y2) > frame.height) {
                continue;
            }
            gc.arrow(x1, y1, Math.max(x1 + 2, x2), y2, ink, 1.2, Math.max(5, frame.em() * 0.45));
            lastX = x2;
        }
    }

    /**
     * Arrows from each overwriting write (its ✕) back to the writes it wiped out (a lost update, a
     * newer price replaced by a stale one), in the race's colour, to follow by eye. At most {@link #MOST_OVERWRITE_ARROWS} a frame.
     */
    void drawOverwriteArrows(TimelineSurface gc, double laneH, double top) {
        int n = frame.model.overwriteFromTime.size();
        if (n == 0) {
            return;
        }
        double end = frame.viewStart + frame.lanesWidth() * frame.nanosPerPixel;
        int ink = PaintColours.derived(colours.of(EventKind.OVERWROTE.ink()), 1, 0.8);
        int drawn = 0;
        // In the order recorded, which is the order of the overwriting writes: from the first in view.
        int first = frame.model.overwriteFromTime.floor((long) Math.ceil(frame.viewStart) - 1) + 1;
        for (int a = first; a < n && drawn < MOST_OVERWRITE_ARROWS; a++) {
            long from = frame.model.overwriteFromTime.get(a);
            long to = frame.model.overwriteToTime.get(a);
            if (from > end) {
                break;
            }
            if (from < frame.viewStart || to > end) {
                continue;
            }
            int fromPos = frame.positionOf(frame.model.overwriteFromLane.get(a));
            int toPos = frame.positionOf(frame.model.overwriteToLane.get(a));
            if (fromPos < 0 || toPos < 0) {
                continue;
            }
            double y1 = top + fromPos * laneH - frame.scrollY + laneH * 0.5;
            double y2 = top + toPos * laneH - frame.scrollY + laneH * 0.5;
            if (Math.max(y1, y2) < top || Math.min(y1, y2) > frame.height) {
                continue;
            }
            gc.arrow(frame.xOf(from), y1, Math.max(frame.gutter(), frame.xOf(to)), y2, ink, 1.5,
                    Math.max(5, frame.em() * 0.45));
            drawn++;
        }
    }

    private static final int MOST_OVERWRITE_ARROWS = 200;

    void drawViolationFocus(TimelineSurface gc, double laneH, double top, int focusedViolation) {
        if (focusedViolation < 0 || focusedViolation >= frame.model.violations()) {
            return;
        }
        double x = frame.xOf(frame.model.violationTime.get(focusedViolation));
        int pos = frame.positionOf(frame.model.violationLane.get(focusedViolation));
        double y = top + pos * laneH - frame.scrollY + laneH * 0.4;
        gc.line(x, top, x, frame.height, colours.of(Ink.RACE), 1, 4);
        double r = Math.max(laneH * 0.7, frame.em());
        gc.strokeCircle(x, y, r, colours.of(Ink.RACE), 2.5);
    }
}
