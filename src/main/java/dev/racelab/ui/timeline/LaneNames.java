package dev.racelab.ui.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.ui.look.Palette;
import javafx.beans.property.IntegerProperty;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.TextAlignment;

/**
 * The gutter left of the lanes: each lane's name, a worker's state as a dot, a worker halted at a
 * gate or selected by the user shaded.
 *
 * <p>Owned by the FX thread.
 */
final class LaneNames {

    private final TimelineFrame frame;
    private final IntegerProperty selectedActor;

    LaneNames(TimelineFrame frame, IntegerProperty selectedActor) {
        this.frame = frame;
        this.selectedActor = selectedActor;
    }

    void drawGutter(GraphicsContext gc, int firstLane, int lastLane, double laneH, double top) {
        double g = frame.gutter();
        gc.setFill(Palette.background());
        gc.fillRect(0, top, g, frame.canvas.getHeight() - top);
        gc.setStroke(Palette.grid());
        gc.setLineWidth(1);
        gc.strokeLine(g - 0.5, top, g - 0.5, frame.canvas.getHeight());
        boolean names = laneH >= frame.em() * 0.9;
        int every = names ? 1 : (int) Math.ceil(frame.em() * 1.1 / laneH);
        gc.setTextBaseline(VPos.CENTER);
        gc.setTextAlign(TextAlignment.LEFT);
        for (int i = firstLane; i <= lastLane; i++) {
            Lane lane = frame.model.lanes.get(frame.order[i]);
            double y = top + i * laneH - frame.scrollY;
            boolean selected = lane.actor == selectedActor.get();
            ActorState state = lane.currentState();
            if (lane.kind == Actor.Kind.WORKER && state == ActorState.AT_GATE || selected) {
                gc.setFill(selected ? Palette.faded(Palette.of(Ink.HIGHLIGHT), 0.7)
                        : Palette.faded(Palette.of(Ink.DELAYED), 0.3));
                gc.fillRect(0, y, g - 1, laneH - 1);
            }
            if (i % every != 0) {
                continue;
            }
            double size = Math.min(lane.kind == Actor.Kind.SERVER ? 0.8 : 0.9, laneH * 0.9 / frame.em());
            gc.setFont(frame.font(Math.round(size * 20) / 20.0, lane.kind == Actor.Kind.SERVER || selected));
            double dot = Math.min(frame.em() * 0.55, laneH * 0.5);
            if (lane.kind == Actor.Kind.WORKER) {
                gc.setFill(Palette.of(state.ink()));
                gc.fillOval(frame.em() * 0.4, y + laneH * 0.45 - dot / 2, dot, dot);
            }
            gc.setFill(lane.kind == Actor.Kind.SERVER ? Palette.of(Ink.HOLDING) : Palette.of(Ink.TEXT));
            gc.fillText(lane.name, frame.em() * 0.4 + (lane.kind == Actor.Kind.WORKER ? dot + frame.em() * 0.35 : 0),
                    y + laneH * 0.45, g - frame.em() * 1.5);
        }
    }
}
