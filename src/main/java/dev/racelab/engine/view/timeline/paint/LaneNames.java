package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.Sketch.Align;
import dev.racelab.engine.view.timeline.paint.TimelineSurface.Baseline;

/**
 * The gutter left of the lanes: each lane's name, a worker's state as a dot, a worker halted at a
 * gate or selected by the user shaded.
 *
 * <p>One thread at a time, as its {@link TimelinePainter}.
 */
final class LaneNames {

    private final TimelineLayout frame;
    private PaintColours colours;

    LaneNames(TimelineLayout frame, PaintColours colours) {
        this.frame = frame;
        this.colours = colours;
    }

    void colours(PaintColours next) {
        colours = next;
    }

    void drawGutter(TimelineSurface gc, int firstLane, int lastLane, double laneH, double top, int selectedActor) {
        double g = frame.gutter();
        gc.fillRect(0, top, g, frame.height - top, colours.background());
        gc.line(g - 0.5, top, g - 0.5, frame.height, colours.grid(), 1, 0);
        boolean names = laneH >= frame.em() * 0.9;
        int every = names ? 1 : (int) Math.ceil(frame.em() * 1.1 / laneH);
        for (int i = firstLane; i <= lastLane; i++) {
            Lane lane = frame.model.lanes.get(frame.order[i]);
            double y = top + i * laneH - frame.scrollY;
            boolean selected = lane.actor == selectedActor;
            ActorState state = lane.currentState();
            if (lane.kind == Actor.Kind.WORKER && state == ActorState.AT_GATE || selected) {
                gc.fillRect(0, y, g - 1, laneH - 1, selected ? colours.faded(Ink.HIGHLIGHT, 0.7)
                        : colours.faded(Ink.DELAYED, 0.3));
            }
            if (i % every != 0) {
                continue;
            }
            double size = Math.min(lane.kind == Actor.Kind.SERVER ? 0.8 : 0.9, laneH * 0.9 / frame.em());
            double px = frame.em() * Math.round(size * 20) / 20.0;
            double dot = Math.min(frame.em() * 0.55, laneH * 0.5);
            if (lane.kind == Actor.Kind.WORKER) {
                gc.fillCircle(frame.em() * 0.4 + dot / 2, y + laneH * 0.45, dot / 2, colours.of(state.ink()));
            }
            gc.text(lane.name, frame.em() * 0.4 + (lane.kind == Actor.Kind.WORKER ? dot + frame.em() * 0.35 : 0),
                    y + laneH * 0.45, px, lane.kind == Actor.Kind.SERVER || selected, Align.LEFT, Baseline.CENTER,
                    lane.kind == Actor.Kind.SERVER ? colours.of(Ink.HOLDING) : colours.of(Ink.TEXT),
                    g - frame.em() * 1.5);
        }
    }
}
