package dev.racelab.ui.timeline;

import dev.racelab.engine.view.timeline.paint.TimelineLayout;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;

/**
 * Which time the timeline shows: following a live run (the whole run in view as it grows, the
 * last ten seconds of a long one), or where the user put it — zoomed, panned, fitted to the whole
 * run, centred on a violation. Panning or zooming by hand stops following. It moves the layout's
 * time window; the view redraws. Owned by the FX thread.
 */
final class TimelineCamera {

    private static final double FOLLOW_WINDOW = 10e9;
    private static final double MIN_FOLLOW_SPAN = 50e6;
    /** The narrowest and widest a pixel may be, in ns. */
    private static final double FINEST = 200;
    private static final double COARSEST = 1e10;

    private final TimelineLayout layout;
    private final BooleanProperty followLive = new SimpleBooleanProperty(this, "followLive", true);

    TimelineCamera(TimelineLayout layout) {
        this.layout = layout;
    }

    BooleanProperty followLive() {
        return followLive;
    }

    /** A fresh run: from its start, following it. */
    void reset() {
        layout.viewStart = 0;
        followLive.set(true);
    }

    /** Following, the time in view for this frame: the run so far, or its last {@link #FOLLOW_WINDOW}. */
    void follow() {
        if (followLive.get()) {
            double span = Math.min(Math.max(layout.now, MIN_FOLLOW_SPAN), FOLLOW_WINDOW);
            layout.nanosPerPixel = span / (layout.lanesWidth() * 0.97);
            layout.viewStart = Math.max(0, layout.now - span);
        }
    }

    /** The whole run in view, up to {@code latest}. */
    void fit(long latest) {
        layout.nanosPerPixel = Math.max(1_000, Math.max(latest, layout.now) * 1.02 / Math.max(1, layout.lanesWidth()));
        layout.viewStart = 0;
        followLive.set(false);
    }

    /** Centres time {@code t} in view, zoomed in at least far enough to show a run ending at {@code latest}. */
    void centreOn(long t, long latest) {
        followLive.set(false);
        double width = layout.lanesWidth();
        layout.nanosPerPixel = Math.min(layout.nanosPerPixel, Math.max(1_000, latest / Math.max(1, width)));
        layout.viewStart = Math.max(0, t - width * layout.nanosPerPixel / 2);
    }

    /** Moves the view by {@code pixels} (positive: later in time). */
    void pan(double pixels) {
        followLive.set(false);
        layout.viewStart = Math.max(0, layout.viewStart + pixels * layout.nanosPerPixel);
    }

    /** Zooms by {@code factor} (below 1: in) keeping the time at {@code anchorX} pixels into the lanes where it is. */
    void zoom(double factor, double anchorX) {
        double anchorT = layout.viewStart + anchorX * layout.nanosPerPixel;
        layout.nanosPerPixel = Math.max(FINEST, Math.min(COARSEST, layout.nanosPerPixel * factor));
        if (!followLive.get()) {
            layout.viewStart = Math.max(0, anchorT - anchorX * layout.nanosPerPixel);
        }
    }

    /** For tests and benchmarks: nanoseconds per pixel and the left edge of the view. */
    void set(double nanosPerPixel, double viewStart) {
        layout.nanosPerPixel = nanosPerPixel;
        layout.viewStart = viewStart;
    }
}
