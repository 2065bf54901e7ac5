package dev.racelab.ui.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.ui.Palette;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.TextAlignment;

import java.util.ArrayList;
import java.util.List;

/**
 * The box under the mouse: which lane and time it points at, the segment or server read there, and
 * the events nearby.
 *
 * <p>Owned by the FX thread.
 */
final class TimelineHover {

    private final TimelineFrame frame;
    private double mouseX = -1;
    private double mouseY = -1;

    TimelineHover(TimelineFrame frame) {
        this.frame = frame;
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
        List<String> lines = new ArrayList<>();
        lines.add(lane.name + " · " + TimelineModel.formatTime(t, 1e4));
        if (lane.kind == Actor.Kind.SERVER) {
            int s = lane.labelStart.floor((long) t);
            if (s >= 0 && lane.labelText.get(s) != null && t < frame.model.labelStop(lane, s)) {
                lines.add(lane.labelText.get(s));
            }
            long read = lane.sampleAtOrBefore((long) t);
            if (read >= 0) {
                // The server view is a sample: say which read it is, and how old.
                lines.add("as of the read at " + TimelineModel.formatTime(read, 1e4) + " (read every "
                        + TimelineModel.formatTime(lane.samplePeriod(), 1e6) + ")");
            }
        } else {
            int s = lane.segStart.floor((long) t);
            if (s >= 0) {
                long start = lane.segStart.get(s);
                long stop = s + 1 < lane.segStart.size() ? lane.segStart.get(s + 1) : frame.now;
                ActorState state = Lane.STATES[lane.segState.get(s)];
                String subject = lane.segSubject.get(s);
                lines.add(state.label() + (subject == null ? "" : " (" + subject + ")") + " for "
                        + TimelineModel.formatTime(stop - start, 1e4) + ", from " + TimelineModel.formatTime(start, 1e4));
            }
            int stripeAt = lane.stripeStart.floor((long) t);
            if (stripeAt >= 0 && lane.stripeText.get(stripeAt) != null && t < frame.model.stripeStop(lane, stripeAt)) {
                long read = lane.stripeSource() < 0 ? -1 : frame.model.lanes.get(lane.stripeSource()).sampleAtOrBefore((long) t);
                lines.add(lane.stripeText.get(stripeAt) + (read < 0 ? "" : ", as of the read at " + TimelineModel.formatTime(read, 1e4)));
            }
        }
        double reach = 5 * frame.nanosPerPixel;
        int m = Math.max(0, lane.markTime.floor((long) (t - reach)));
        for (int count = 0; m < lane.markTime.size() && count < 4; m++) {
            long mt = lane.markTime.get(m);
            if (mt > t + reach) {
                break;
            }
            if (mt >= t - reach) {
                lines.add(Lane.KINDS[lane.markKind.get(m)].describe(lane.markSubject.get(m), lane.markValue.get(m)));
                count++;
            }
        }
        gc.setFont(frame.font(0.85, false));
        double lineH = frame.em() * 1.25;
        double boxW = 0;
        for (String line : lines) {
            boxW = Math.max(boxW, line.length() * frame.em() * 0.5);
        }
        boxW += frame.em();
        double boxH = lines.size() * lineH + frame.em() * 0.5;
        double x = Math.min(mouseX + 14, frame.canvas.getWidth() - boxW - 4);
        double y = Math.min(mouseY + 14, frame.canvas.getHeight() - boxH - 4);
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
