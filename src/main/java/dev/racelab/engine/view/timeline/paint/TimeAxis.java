package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.engine.view.Sketch.Align;
import dev.racelab.engine.view.timeline.paint.TimelineSurface.Baseline;

/**
 * The time axis above the lanes: ticks at round steps, and whether the view follows the run live.
 *
 * <p>One thread at a time, as its {@link TimelinePainter}.
 */
final class TimeAxis {

    private final TimelineLayout frame;
    private PaintColours colours;

    TimeAxis(TimelineLayout frame, PaintColours colours) {
        this.frame = frame;
        this.colours = colours;
    }

    void colours(PaintColours next) {
        colours = next;
    }

    void drawAxis(TimelineSurface gc, boolean followingLive) {
        double w = frame.width;
        double top = frame.axisHeight();
        gc.fillRect(0, 0, w, top, colours.background());
        gc.line(0, top - 0.5, w, top - 0.5, colours.grid(), 1, 0);
        double step = niceStep(frame.nanosPerPixel * frame.em() * 7);
        double first = Math.ceil(frame.viewStart / step) * step;
        double end = frame.viewEnd();
        double px = frame.em() * 0.8;
        for (double t = first; t <= end; t += step) {
            double x = Math.round(frame.xOf(t)) + 0.5;
            gc.line(x, top - 5, x, top, colours.grid(), 1, 0);
            gc.text(TimelineModel.formatTime(t, step), x, top / 2, px, false, Align.CENTER, Baseline.CENTER,
                    colours.of(Ink.MUTED), 0);
        }
        gc.text(followingLive ? "time · live" : "time", frame.em() * 0.4, top / 2, px, false, Align.LEFT,
                Baseline.CENTER, colours.of(Ink.TEXT), 0);
    }

    static double niceStep(double rough) {
        double power = Math.pow(10, Math.floor(Math.log10(Math.max(1, rough))));
        for (double factor : new double[] {1, 2, 5, 10}) {
            if (power * factor >= rough) {
                return power * factor;
            }
        }
        return power * 10;
    }
}
