package dev.racelab.engine.view.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;

import java.util.ArrayList;
import java.util.List;

/**
 * What the timeline's hover box says at a lane and a time: the lane and the time, the segment or
 * the server's read there (how old the read is), the stripe over it, and up to four events within
 * a few pixels, each with its time. Times count from the run's start, as every export's do.
 */
public final class HoverText {

    /** How near, in pixels, an event is named. */
    private static final double REACH_PIXELS = 5;
    /** How many events nearby are named, at most. */
    private static final int EVENTS = 4;

    private HoverText() {
    }

    /**
     * @param lane          the lane pointed at
     * @param t             the time pointed at, in ns from the run's start
     * @param nanosPerPixel the zoom: how near an event must be to be named
     * @param now           where an open segment ends (the run's latest time)
     */
    public static List<String> at(TimelineModel model, Lane lane, double t, double nanosPerPixel, long now) {
        List<String> lines = new ArrayList<>();
        lines.add(lane.name + " · " + time(t));
        if (lane.kind == Actor.Kind.SERVER) {
            int s = lane.labelStart.floor((long) t);
            if (s >= 0 && lane.labelText.get(s) != null && t < model.labelStop(lane, s)) {
                lines.add(lane.labelText.get(s));
            }
            long read = lane.sampleAtOrBefore((long) t);
            if (read >= 0) {
                // The server view is a sample: say which read it is, and how old.
                lines.add("as of the read at " + time(read) + " (read every "
                        + TimelineModel.formatTime(lane.samplePeriod(), 1e6) + ")");
            }
        } else {
            int s = lane.segStart.floor((long) t);
            if (s >= 0) {
                long start = lane.segStart.get(s);
                long stop = s + 1 < lane.segStart.size() ? lane.segStart.get(s + 1) : now;
                ActorState state = Lane.STATES[lane.segState.get(s)];
                String subject = lane.segSubject.get(s);
                lines.add(state.label() + (subject == null ? "" : " (" + subject + ")") + " for "
                        + time(stop - start) + ", from " + time(start));
            }
            int stripeAt = lane.stripeStart.floor((long) t);
            if (stripeAt >= 0 && lane.stripeText.get(stripeAt) != null && t < model.stripeStop(lane, stripeAt)) {
                long read = lane.stripeSource() < 0 ? -1 : model.lanes.get(lane.stripeSource()).sampleAtOrBefore((long) t);
                lines.add(lane.stripeText.get(stripeAt) + (read < 0 ? "" : ", as of the read at " + time(read)));
            }
        }
        double reach = REACH_PIXELS * nanosPerPixel;
        int m = Math.max(0, lane.markTime.floor((long) (t - reach)));
        for (int count = 0; m < lane.markTime.size() && count < EVENTS; m++) {
            long mt = lane.markTime.get(m);
            if (mt > t + reach) {
                break;
            }
            if (mt >= t - reach) {
                lines.add(Lane.KINDS[lane.markKind.get(m)].describe(lane.markSubject.get(m), lane.markValue.get(m))
                        + " at " + time(mt));
                count++;
            }
        }
        return lines;
    }

    /** A time as the hover says it: milliseconds to 10 µs. */
    public static String time(double nanos) {
        return TimelineModel.formatTime(nanos, 1e4);
    }
}
