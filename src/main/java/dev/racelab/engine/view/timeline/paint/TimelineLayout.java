package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Actor;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.TimelineModel;

import java.util.ArrayList;
import java.util.List;

/**
 * Where everything of one drawing of the timeline goes: the run's model and its lanes in order,
 * the time in view (nanoseconds per pixel, the left edge, now), the vertical scroll, the drawing's
 * size, and the sizes that follow from the font (the names gutter, the time axis, a lane's
 * height). The window's view and camera set it each frame, an export once; the painter only reads
 * it. A plain holder: one thread at a time (the FX thread, or the export's).
 */
public final class TimelineLayout {

    public TimelineModel model;
    /** Actor ids of the drawn lanes, top to bottom ({@link #orderLanes}). */
    public int[] order = new int[0];
    public double nanosPerPixel = 50_000;
    /** The time at the lanes' left edge, in ns from the run's start. */
    public double viewStart;
    /** Where open segments end: the run's latest time, or the clock's while it is live. */
    public long now;
    /** How far the lanes are scrolled up, in pixels. */
    public double scrollY;
    /** The drawing's size in pixels. */
    public double width;
    public double height;
    /** Thin lanes without room for words, to see hundreds of workers at once. */
    public boolean compact;
    /** A lane's height fixed by an export, in pixels; 0: as the drawing's height shares it out. */
    public double fixedLaneHeight;
    private double em = 13;

    public double em() {
        return em;
    }

    public void setEm(double size) {
        em = size;
    }

    /** The names' gutter, whole pixels wide: the lanes' pixels start on a pixel's edge. */
    public double gutter() {
        return Math.round(compact ? em * 7 : em * 9);
    }

    /** The time axis, whole pixels high: the lanes' pixels start on a pixel's edge. */
    public double axisHeight() {
        return Math.ceil(em * 1.9);
    }

    public double lanesWidth() {
        return Math.max(1, width - gutter());
    }

    public double laneHeight() {
        if (fixedLaneHeight > 0) {
            return fixedLaneHeight;
        }
        double fit = (height - axisHeight()) / Math.max(1, order.length);
        if (compact) {
            return Math.max(4, Math.min(em * 1.1, Math.floor(fit)));
        }
        // Roomy lanes where they fit; where they would not (large text on a small screen), lanes
        // as thin as their words allow, so that every worker stays in view.
        double roomy = em * 2.1;
        return Math.floor(fit >= roomy ? Math.min(em * 3.4, fit) : Math.max(em * 1.4, fit));
    }

    /** Lanes top to bottom: server lanes, then workers; the run's own lane is not drawn. */
    public void orderLanes() {
        List<Integer> servers = new ArrayList<>();
        List<Integer> workers = new ArrayList<>();
        for (Lane lane : model.lanes) {
            if (lane.kind == Actor.Kind.SERVER) {
                servers.add(lane.actor);
            } else if (lane.kind == Actor.Kind.WORKER) {
                workers.add(lane.actor);
            }
        }
        servers.addAll(workers);
        if (order.length != servers.size()) {
            order = servers.stream().mapToInt(Integer::intValue).toArray();
        } else {
            for (int i = 0; i < order.length; i++) {
                order[i] = servers.get(i);
            }
        }
    }

    /** The position of {@code actor}'s lane from the top, or -1. */
    public int positionOf(int actor) {
        for (int i = 0; i < order.length; i++) {
            if (order[i] == actor) {
                return i;
            }
        }
        return -1;
    }

    public double xOf(double t) {
        return gutter() + (t - viewStart) / nanosPerPixel;
    }

    /** The time at the lanes' right edge. */
    public double viewEnd() {
        return viewStart + lanesWidth() * nanosPerPixel;
    }
}
