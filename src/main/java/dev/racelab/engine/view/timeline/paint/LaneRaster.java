package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.view.timeline.ColumnSpans;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.StateColumns;

import java.util.Arrays;

/**
 * Paints whole lanes into the timeline's pixel buffer, one at a time: a lane's row of colours (its
 * states, {@link StateColumns}; a server lane's labels), the server's stripe under a worker, the
 * hatching, and the marks ({@link MarkerSprites}); each lane is rows of its own.
 *
 * <p>One thread at a time, as its {@link LanePixels}.
 */
final class LaneRaster {

    /** Per state ordinal, from the vocabulary: how it is filled. */
    private static final byte[] PATTERN = new byte[ActorState.values().length];
    private static final byte PATTERN_NONE = -1;
    private static final byte PATTERN_SOLID = 0;
    private static final byte PATTERN_HATCHED = 1;
    private static final byte PATTERN_BARRED = 2;

    static {
        for (ActorState state : ActorState.values()) {
            PATTERN[state.ordinal()] = switch (state.pattern()) {
                case NONE -> PATTERN_NONE;
                case SOLID -> PATTERN_SOLID;
                case HATCHED -> PATTERN_HATCHED;
                case BARRED -> PATTERN_BARRED;
            };
        }
    }

    /**
     * Whether pixel column {@code x} of a state filled {@code fill} ({@link #fill}) is drawn in the
     * state's lighter colour: a delay's hatching, three columns in eight; a halt's bars, two in six.
     */
    static boolean lighter(int fill, int x) {
        return fill == PATTERN_HATCHED && x % 8 < 3 || fill == PATTERN_BARRED && x % 6 < 2;
    }

    /** How {@code state} is filled, as {@link #lighter} takes it. */
    static int fill(ActorState state) {
        return PATTERN[state.ordinal()];
    }

    private final TimelineLayout frame;
    private final LanePixels.Colours colours;
    private final int[] pixels;
    private final int width;
    private final int height;
    private final int[] row;
    private final byte[] rowPattern;
    private final int[] stripe;
    private final int[] whiteRow;
    private final StateColumns stateColumns = new StateColumns();
    private final ColumnSpans spans = new ColumnSpans();
    private final MarkerSprites sprites;

    LaneRaster(TimelineLayout frame, LanePixels.Colours colours, int[] pixels, int width, int height) {
        this.frame = frame;
        this.colours = colours;
        this.pixels = pixels;
        this.width = width;
        this.height = height;
        this.row = new int[width];
        this.rowPattern = new byte[width];
        this.stripe = new int[width];
        this.whiteRow = new int[width];
        Arrays.fill(whiteRow, colours.white);
        this.sprites = new MarkerSprites(pixels, colours);
    }

    /** Paints the lane at position {@code i}, {@code laneH} pixels high. */
    void paint(int i, double laneH) {
        int[] pixels = this.pixels;
        int width = this.width;
        int height = this.height;
        Lane lane = frame.model.lanes.get(frame.order[i]);
        int y0 = (int) Math.round(i * laneH - frame.scrollY);
        int y1 = (int) Math.round((i + 1) * laneH - frame.scrollY);
        int background = lane.kind == Actor.Kind.SERVER ? colours.serverBand : (i % 2 == 0 ? colours.band : colours.white);
        Arrays.fill(row, background);
        Arrays.fill(rowPattern, (byte) -1);
        Arrays.fill(stripe, 0);
        boolean hasStripe = false;
        if (lane.kind == Actor.Kind.WORKER) {
            fillStates(lane, width, background);
            hasStripe = fillStripe(lane, width);
        } else if (lane.kind == Actor.Kind.SERVER) {
            fillLabels(lane, width, background);
        }
        int gap = laneH >= 8 ? 2 : laneH >= 5 ? 1 : 0;
        int stripeRows = hasStripe ? Math.max(2, (int) ((y1 - y0) * 0.22)) : 0;
        for (int x = 0; x < width; x++) {
            int pattern = rowPattern[x];
            if (pattern >= 0) {
                if (lighter(pattern & 3, x)) {
                    row[x] = colours.stateArgbLight[pattern >> 2];
                }
            }
            if (hasStripe && stripe[x] == 0) {
                stripe[x] = row[x];
            }
        }
        int yMax = Math.min(height, y1);
        for (int y = Math.max(0, y0); y < yMax; y++) {
            int offset = y * width;
            if (y >= y1 - gap) {
                System.arraycopy(whiteRow, 0, pixels, offset, width);
            } else if (y >= y1 - gap - stripeRows) {
                System.arraycopy(stripe, 0, pixels, offset, width);
            } else {
                System.arraycopy(row, 0, pixels, offset, width);
            }
        }
        if (lane.kind == Actor.Kind.WORKER) {
            sprites.paint(lane, width, height, y0, y1 - gap - stripeRows, frame.viewStart, frame.nanosPerPixel);
        }
    }

    /**
     * Colours {@code row}: one state per pixel column, the most telling one where several meet
     * ({@link StateColumns}, the rule the exported pictures draw by too).
     */
    private void fillStates(Lane lane, int width, int background) {
        stateColumns.paint(lane, width, frame.viewStart, frame.nanosPerPixel, frame.now);
        for (int x = 0; x < width; x++) {
            int state = stateColumns.state(x);
            if (state < 0) {
                row[x] = background;
                continue;
            }
            row[x] = colours.stateArgb[state];
            // The state and its fill in one byte: the overlay pass needs both.
            byte fill = PATTERN[state];
            rowPattern[x] = fill == PATTERN_SOLID ? -1 : (byte) (state << 2 | fill);
        }
    }

    /**
     * Colours a server lane's {@code row} by what each label says (holding, waiting, a value): a
     * column shows the last label it covers ({@link ColumnSpans}); an edge marks a column where one
     * label begins that says something new.
     */
    private void fillLabels(Lane lane, int width, int background) {
        int n = lane.labelStart.size();
        if (n == 0) {
            return;
        }
        spans.measure(lane.labelStart, frame.model.labelStop(lane, n - 1), width, frame.viewStart, frame.nanosPerPixel);
                int phase = (int) (frame.viewStart / frame.nanosPerPixel);
        for (int k = 0, runs = spans.runs(); k < runs; k++) {
            int s = spans.last(k);
            int at = spans.at(k);
            // An old read drawn on while no new one came is hatched: the view lags there.
            boolean stale = lane.labelStale.get(s) != 0;
            int colour = colours.labelArgb[lane.labelInk.get(s)];
            for (int x = at, until = spans.until(k); x <= until; x++) {
                row[x] = stale && (x + phase) % 6 < 3 ? background : colour;
            }
            boolean onlyOneBegins = spans.column(lane.labelStart.get(s)) == at
                    && (s == 0 || spans.column(lane.labelStart.get(s - 1)) < at);
            if (onlyOneBegins && lane.labelSaysNew(s)) {
                row[at] = colours.edge;
            }
        }
    }

    /** Colours {@code stripe} with what the server says of the worker's session; false if it says nothing. */
    private boolean fillStripe(Lane lane, int width) {
        int n = lane.stripeStart.size();
        if (n == 0) {
            return false;
        }
        spans.measure(lane.stripeStart, frame.model.stripeStop(lane, n - 1), width, frame.viewStart, frame.nanosPerPixel);
        boolean any = false;
        for (int k = 0, runs = spans.runs(); k < runs; k++) {
            int at = spans.at(k);
            int s = lane.stripeShown(spans.first(k), spans.last(k));
            if (s >= 0) {
                stripe[at] = lane.stripeState.get(s) == Lane.SERVER_WAITS ? colours.stripeWaits : colours.stripeHolds;
                any = true;
            }
            int alone = spans.last(k);
            if (lane.stripeState.get(alone) != Lane.SERVER_NONE) {
                int colour = lane.stripeState.get(alone) == Lane.SERVER_WAITS ? colours.stripeWaits : colours.stripeHolds;
                for (int x = at + 1, until = spans.until(k); x <= until; x++) {
                    stripe[x] = colour;
                }
                any |= spans.until(k) > at;
            }
        }
        return any;
    }
}
