package dev.racelab.engine.view.timeline;

import dev.racelab.engine.ActorState;

/**
 * A worker lane's states as pixel columns, one state per column: where several segments meet in
 * one column, the most telling wins (a failure over a halt over a wait over a delay over running;
 * of two as telling, the later), so a short wait is never lost when zoomed out. States drawn as
 * nothing (idle, done) paint no column. The one rule the window's timeline and the exported
 * pictures draw by; what it costs depends on the columns, not on how many segments they cover.
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

    private final ColumnSpans spans = new ColumnSpans();
    private static final byte NOTHING = -1;
    /** Up to this many segments a column in view, each is painted in turn; past it, columns are found by range. */
    private static final int SEGMENTS_ONE_BY_ONE = 4;
    private byte[] state = new byte[0];
    /** Painting one by one: the priority of the state each column has so far. */
    private int[] priority = new int[0];
    private int width;

    /** How telling a state is, as a lane's {@link MostTelling} keeps it: its priority, or -1 if it is drawn as nothing. */
    static int key(int state) {
        return DRAWN[state] ? PRIORITY[state] : -1;
    }

    /**
     * Paints {@code lane}'s states into {@code columns} columns, column 0 beginning at {@code
     * start} ns and each {@code nanosPerColumn} wide; the last segment goes on to {@code now}.
     * A column shows the most telling of the segments it covers ({@link ColumnSpans}), found in a
     * few steps by the window's lanes ({@link MostTelling}), by a look at each in a folded lane
     * (which keeps at most two a column).
     */
    public void paint(Lane lane, int columns, double start, double nanosPerColumn, long now) {
        if (state.length < columns) {
            state = new byte[columns];
            priority = new int[columns];
        }
        width = columns;
        java.util.Arrays.fill(state, 0, columns, NOTHING);
        int first = Math.max(0, lane.segStart.floor((long) start));
        int last = lane.segStart.floor((long) Math.ceil(start + columns * nanosPerColumn));
        if (last - first <= SEGMENTS_ONE_BY_ONE * columns) {
            // Few segments a column: painting each is quicker than finding each column's range.
            paintOneByOne(lane, columns, start, nanosPerColumn, now, first);
            return;
        }
        spans.measure(lane.segStart, now, columns, start, nanosPerColumn);
        byte[] states = lane.segState.raw();
        MostTelling index = lane.segWinners;
        for (int k = 0, runs = spans.runs(); k < runs; k++) {
            int from = spans.first(k);
            int to = spans.last(k);
            int at = spans.at(k);
            int winner = from == to ? from : index != null ? index.winner(from, to) : winner(states, from, to);
            state[at] = DRAWN[states[winner]] ? states[winner] : NOTHING;
            byte alone = DRAWN[states[to]] ? states[to] : NOTHING;
            for (int x = at + 1, until = spans.until(k); x <= until; x++) {
                state[x] = alone;
            }
        }
    }

    /**
     * Paints every segment in view in turn: a column it covers takes its state if it is as telling
     * as the column's so far (segments in order, so the later of two as telling wins).
     */
    private void paintOneByOne(Lane lane, int columns, double start, double nanosPerColumn, long now, int first) {
        java.util.Arrays.fill(priority, 0, columns, -1);
        int n = lane.segStart.size();
        long[] starts = lane.segStart.raw();
        byte[] states = lane.segState.raw();
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
            int x0 = x0d <= 0 ? 0 : x0d >= last ? last : (int) x0d;
            int x1 = x1d >= last ? last : (int) x1d;
            int p = PRIORITY[segment];
            if (p >= priority[x0]) {
                priority[x0] = p;
                state[x0] = (byte) segment;
            }
            // Columns inside the segment are its own; at its edges the more telling state wins.
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

    /** The most telling of segments {@code from} to {@code to}, the later of two as telling, one by one. */
    private static int winner(byte[] states, int from, int to) {
        int best = from;
        int bestKey = key(states[from]);
        for (int s = from + 1; s <= to; s++) {
            int key = key(states[s]);
            if (key >= bestKey) {
                best = s;
                bestKey = key;
            }
        }
        return best;
    }

    /** How many columns were painted. */
    public int width() {
        return width;
    }

    /** The state that won column {@code x} (its ordinal), or -1 where nothing is drawn. */
    public int state(int x) {
        return state[x];
    }
}
