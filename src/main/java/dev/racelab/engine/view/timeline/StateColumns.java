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
    private byte[] state = new byte[0];
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
        }
        width = columns;
        java.util.Arrays.fill(state, 0, columns, NOTHING);
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
