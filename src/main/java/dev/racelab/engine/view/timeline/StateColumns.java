package dev.racelab.engine.view.timeline;

import dev.racelab.engine.ActorState;

import java.util.Arrays;

/**
 * A worker lane's states as pixel columns, one state per column: where several segments meet in
 * one column, the most telling wins (a failure over a halt over a wait over a delay over running;
 * of two as telling, the later), so a short wait is never lost when zoomed out. States drawn as
 * nothing (idle, done) paint no column. The one rule the window's timeline and the exported
 * pictures draw by; the hot loop of the window, which sees every segment in view, so it reads the
 * lane's arrays directly and multiplies by the inverse scale instead of dividing.
 *
 * <p>Owned by the thread that draws.
 */
public final class StateColumns {

    /** Per state ordinal: how telling it is, and whether it is drawn at all. */
    private static final int[] PRIORITY = new int[ActorState.values().length];
    private static final boolean[] DRAWN = new boolean[ActorState.values().length];

    static {
        for (ActorState state : ActorState.values()) {
            PRIORITY[state.ordinal()] = state.priority();
            DRAWN[state.ordinal()] = state.pattern() != ActorState.Pattern.NONE;
        }
    }

    private int[] priority = new int[0];
    private byte[] state = new byte[0];
    private int width;

    /**
     * Paints {@code lane}'s states into {@code columns} columns, column 0 beginning at {@code
     * start} ns and each {@code nanosPerColumn} wide; the last segment goes on to {@code now}.
     */
    public void paint(Lane lane, int columns, double start, double nanosPerColumn, long now) {
        if (priority.length < columns) {
            priority = new int[columns];
            state = new byte[columns];
        }
        width = columns;
        Arrays.fill(priority, 0, columns, -1);
        int n = lane.segStart.size();
        long[] starts = lane.segStart.raw();
        byte[] states = lane.segState.raw();
        int first = Math.max(0, lane.segStart.floor((long) start));
        double inverse = 1.0 / nanosPerColumn;
        double end = start + columns * nanosPerColumn;
        int last = columns - 1;
        for (int s = first; s < n; s++) {
            long from = starts[s];
            if (from > end) {
                break;
            }
            int segment = states[s];
            if (!DRAWN[segment]) {
                continue;
            }
            long stop = s + 1 < n ? starts[s + 1] : now;
            double x0d = (from - start) * inverse;
            double x1d = (stop - start) * inverse;
            if (x1d < 0) {
                continue;
            }
            // A segment may start exactly at the right edge: clamp both ends into the row.
            int x0 = x0d <= 0 ? 0 : x0d >= last ? last : (int) x0d;
            int x1 = x1d >= last ? last : (int) x1d;
            int p = PRIORITY[segment];
            if (p >= priority[x0]) {
                priority[x0] = p;
                state[x0] = (byte) segment;
            }
            // Columns inside the segment are its own; at its edges it shares the column with its
            // neighbours and the more telling state wins.
            for (int x = x0 + 1; x < x1; x++) {
                priority[x] = p;
                state[x] = (byte) segment;
            }
            if (x1 > x0 && p >= priority[x1]) {
                priority[x1] = p;
                state[x1] = (byte) segment;
            }
        }
    }

    /** How many columns were painted. */
    public int width() {
        return width;
    }

    /** The state that won column {@code x} (its ordinal), or -1 where nothing is drawn. */
    public int state(int x) {
        return priority[x] < 0 ? -1 : state[x];
    }
}
