package dev.racelab.ui.timeline;

import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.HoverText;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.paint.TimelineLayout;
import dev.racelab.ui.look.Palette;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.TextAlignment;

import java.util.List;

/**
 * The box under the mouse, saying what {@link HoverText} says of the lane and the time it points at.
 *
 * <p>Owned by the FX thread.
 */
final class TimelineHover {

    private final TimelineLayout frame;
    private final FxSurface surface;
    private double mouseX = -1;
    private double mouseY = -1;

    TimelineHover(TimelineLayout frame, FxSurface surface) {
        this.frame = frame;
        this.surface = surface;
    }

    /** The mouse is at ({@code x}, {@code y}) on the canvas. */
    void moveTo(double x, double y) {
        mouseX = x;
        mouseY = y;
    }

    /** The mouse left the canvas: no box. */
    void leave() {
        mouseX = -1;
    }

    void drawHover(GraphicsContext gc, double laneH, double top) {
        if (mouseX < frame.gutter() || mouseY < top || frame.model == null) {
            return;
        }
        int pos = (int) Math.floor((mouseY - top + frame.scrollY) / laneH);
        if (pos < 0 || pos >= frame.order.length) {
            return;
        }
        Lane lane = frame.model.lanes.get(frame.order[pos]);
        double t = frame.viewStart + (mouseX - frame.gutter()) * frame.nanosPerPixel;
        List<String> lines = HoverText.at(frame.model, lane, t, frame.nanosPerPixel, frame.now);
        gc.setFont(surface.font(frame.em() * 0.85, false));
        double lineH = frame.em() * 1.25;
        double boxW = 0;
        for (String line : lines) {
            boxW = Math.max(boxW, line.length() * frame.em() * 0.5);
        }
        boxW += frame.em();
        double boxH = lines.size() * lineH + frame.em() * 0.5;
        double x = Math.min(mouseX + 14, frame.width - boxW - 4);
        double y = Math.min(mouseY + 14, frame.height - boxH - 4);
        gc.setFill(Palette.background().deriveColor(0, 1, 1, 0.96));
        gc.fillRoundRect(x, y, boxW, boxH, 8, 8);
        gc.setStroke(Palette.of(Ink.OUTLINE));
        gc.setLineWidth(1);
        gc.strokeRoundRect(x, y, boxW, boxH, 8, 8);
        gc.setTextAlign(TextAlignment.LEFT);
        gc.setTextBaseline(VPos.TOP);
        for (int i = 0; i < lines.size(); i++) {
            gc.setFill(i == 0 ? Palette.of(Ink.MUTED) : Palette.of(Ink.TEXT));
            gc.fillText(lines.get(i), x + frame.em() * 0.5, y + frame.em() * 0.25 + i * lineH);
        }
    }
}
