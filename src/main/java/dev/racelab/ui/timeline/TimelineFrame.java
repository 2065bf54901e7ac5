package dev.racelab.ui.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.TimelineModel;
import javafx.beans.property.BooleanProperty;
import javafx.scene.canvas.Canvas;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one drawing of the timeline is drawn against: the run's model and its lanes in order, the
 * time in view (nanoseconds per pixel, the left edge, now), the vertical scroll, and the sizes that
 * follow from the font (the names gutter, the time axis, a lane's height). {@link TimelineView}
 * changes it; the painters ({@link LanePixels}, {@link LaneWords}, {@link TimelineOverlays},
 * {@link LaneNames}, {@link TimeAxis}, {@link TimelineHover}) only read it.
 *
 * <p>Owned by the FX thread.
 */
final class TimelineFrame {

    final Canvas canvas;
    private final BooleanProperty compact;
    TimelineModel model;
    /** Actor ids of the drawn lanes, top to bottom. */
    int[] order = new int[0];
    double nanosPerPixel = 50_000;
    double viewStart;
    long now;
    double scrollY;
    private double em = Font.getDefault().getSize();
    private final Map<Long, Font> fonts = new HashMap<>();

    TimelineFrame(Canvas canvas, BooleanProperty compact) {
        this.canvas = canvas;
        this.compact = compact;
    }

    double em() {
        return em;
    }

    void setEm(double size) {
        em = size;
    }

    /** The base font at {@code scale} × em, bold or not; cached, since drawing asks for them every frame. */
    Font font(double scale, boolean bold) {
        long key = Math.round(em * scale * 100) * 2 + (bold ? 1 : 0);
        return fonts.computeIfAbsent(key, k -> Font.font(Font.getDefault().getFamily(),
                bold ? FontWeight.BOLD : FontWeight.NORMAL, em * scale));
    }

    double gutter() {
        return compact.get() ? em() * 7 : em() * 9;
    }

    double axisHeight() {
        return em() * 1.9;
    }

    double lanesWidth() {
        return Math.max(1, canvas.getWidth() - gutter());
    }

    double laneHeight() {
        if (compact.get()) {
            double fit = (canvas.getHeight() - axisHeight()) / Math.max(1, order.length);
            return Math.max(4, Math.min(em() * 1.1, Math.floor(fit)));
        }
        // Roomy lanes where they fit; where they would not (large text on a small screen), lanes
        // as thin as their words allow, so that every worker stays in view.
        double fit = (canvas.getHeight() - axisHeight()) / Math.max(1, order.length);
        double roomy = em() * 2.1;
        return Math.floor(fit >= roomy ? Math.min(em() * 3.4, fit) : Math.max(em() * 1.4, fit));
    }

    /** Lanes top to bottom: server lanes, then workers; the run's own lane is not drawn. */
    void orderLanes() {
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

    int positionOf(int actor) {
        for (int i = 0; i < order.length; i++) {
            if (order[i] == actor) {
                return i;
            }
        }
        return -1;
    }

    double xOf(double t) {
        return gutter() + (t - viewStart) / nanosPerPixel;
    }
}
