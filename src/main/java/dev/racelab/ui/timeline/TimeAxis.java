package dev.racelab.ui.timeline;

import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.ui.look.Palette;
import javafx.beans.property.BooleanProperty;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.TextAlignment;

/**
 * The time axis above the lanes: ticks at round steps, and whether the view follows the run live.
 *
 * <p>Owned by the FX thread.
 */
final class TimeAxis {

    private final TimelineFrame frame;
    private final BooleanProperty followLive;

    TimeAxis(TimelineFrame frame, BooleanProperty followLive) {
        this.frame = frame;
        this.followLive = followLive;
    }

    void drawAxis(GraphicsContext gc, double w) {
        double top = frame.axisHeight();
        gc.setFill(Palette.background());
        gc.fillRect(0, 0, w, top);
        gc.setStroke(Palette.grid());
        gc.setLineWidth(1);
        gc.strokeLine(0, top - 0.5, w, top - 0.5);
        double step = niceStep(frame.nanosPerPixel * frame.em() * 7);
        double first = Math.ceil(frame.viewStart / step) * step;
        double end = frame.viewStart + frame.lanesWidth() * frame.nanosPerPixel;
        gc.setFont(frame.font(0.8, false));
        gc.setTextBaseline(VPos.CENTER);
        gc.setTextAlign(TextAlignment.CENTER);
        gc.setFill(Palette.of(Ink.MUTED));
        for (double t = first; t <= end; t += step) {
            double x = Math.round(frame.xOf(t)) + 0.5;
            gc.strokeLine(x, top - 5, x, top);
            gc.fillText(TimelineModel.formatTime(t, step), x, top / 2);
        }
        gc.setTextAlign(TextAlignment.LEFT);
        gc.setFill(Palette.of(Ink.TEXT));
        gc.fillText(followLive.get() ? "time · live" : "time", frame.em() * 0.4, top / 2);
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
