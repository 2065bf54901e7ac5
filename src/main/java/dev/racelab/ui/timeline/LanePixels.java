package dev.racelab.ui.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.StateColumns;
import dev.racelab.ui.Palette;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelBuffer;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;

import java.nio.IntBuffer;
import java.util.Arrays;

/**
 * The lanes' colours, painted into a pixel buffer: one colour per pixel column per lane, the most
 * telling state where many segments fall into one column ({@link StateColumns}), delays hatched and
 * halts barred, the server's stripe under each worker, server lanes coloured by what they read, and
 * the markers ({@link MarkerSprites}). The buffer goes to the canvas in one image.
 *
 * <p>Owned by the FX thread.
 */
final class LanePixels {

    /** Per state ordinal, from the vocabulary: how it is filled. */
    private static final byte[] PATTERN = new byte[ActorState.values().length];
    private static final byte PATTERN_NONE = -1;
    private static final byte PATTERN_SOLID = 0;
    private static final byte PATTERN_HATCHED = 1;
    private static final byte PATTERN_BARRED = 2;
    private static final int STRIPE_WAITS = Palette.argb(Palette.of(Ink.WAITING));
    private static final int STRIPE_HOLDS = Palette.argb(Palette.of(Ink.HOLDING));

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

    private final TimelineFrame frame;
    private final int[] stateArgb = new int[ActorState.values().length];
    private final int[] stateArgbLight = new int[ActorState.values().length];
    private final int[] labelArgb = new int[Ink.values().length];
    private WritableImage image;
    private PixelBuffer<IntBuffer> pixelBuffer;
    private int[] pixels = new int[0];
    private int[] row = new int[0];
    private final StateColumns stateColumns = new StateColumns();
    private byte[] rowPattern = new byte[0];
    private int[] stripe = new int[0];
    private int[] whiteRow = new int[0];
    private MarkerSprites sprites;

    LanePixels(TimelineFrame frame) {
        this.frame = frame;
        colours();
    }

    /** Takes up the palette's colours after a change of theme. */
    void themeChanged() {
        colours();
        sprites = null;
    }

    /** The palette's colours as this view caches them for its pixel buffers. */
    private void colours() {
        for (ActorState state : ActorState.values()) {
            Color color = Palette.of(state.ink());
            stateArgb[state.ordinal()] = Palette.argb(color);
            stateArgbLight[state.ordinal()] = Palette.argb(Palette.faded(color, 0.55));
        }
        for (Ink ink : Ink.values()) {
            labelArgb[ink.ordinal()] = Palette.argb(switch (ink) {
                case HOLDING -> Palette.faded(Palette.of(Ink.HOLDING), 0.55);
                case WAITING -> Palette.faded(Palette.of(Ink.WAITING), 0.45);
                // A lock no worker owns (SERVER_ORPHANS): the model inks it as a race, as the exports draw it.
                case RACE -> Palette.faded(Palette.of(Ink.RACE), 0.45);
                case OUTLINE -> Palette.faded(Palette.of(Ink.OUTLINE), 0.6);
                default -> Palette.faded(Palette.laneBand(), 0.3);
            });
        }
    }

    void paintSegments(GraphicsContext gc, int firstLane, int lastLane, double laneH, double top,
                               int width, int height) {
        if (width <= 0 || height <= 0) {
            return;
        }
        if (image == null || sprites == null || image.getWidth() != width || image.getHeight() != height) {
            pixels = new int[width * height];
            pixelBuffer = new PixelBuffer<>(width, height, IntBuffer.wrap(pixels), PixelFormat.getIntArgbPreInstance());
            image = new WritableImage(pixelBuffer);
            row = new int[width];
            rowPattern = new byte[width];
            stripe = new int[width];
            whiteRow = new int[width];
            Arrays.fill(whiteRow, Palette.argb(Palette.background()));
            sprites = new MarkerSprites(pixels);
        }
        int band = Palette.argb(Palette.laneBand());
        int white = Palette.argb(Palette.background());
        int serverBand = Palette.argb(Palette.faded(Palette.of(Ink.HOLDING), 0.9));
        for (int i = firstLane; i <= lastLane; i++) {
            Lane lane = frame.model.lanes.get(frame.order[i]);
            int y0 = (int) Math.round(i * laneH - frame.scrollY);
            int y1 = (int) Math.round((i + 1) * laneH - frame.scrollY);
            int background = lane.kind == Actor.Kind.SERVER ? serverBand : (i % 2 == 0 ? band : white);
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
                    int state = pattern >> 2;
                    int fill = pattern & 3;
                    if (fill == PATTERN_HATCHED && x % 8 < 3 || fill == PATTERN_BARRED && x % 6 < 2) {
                        row[x] = stateArgbLight[state];
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
        int painted = (int) Math.round((lastLane + 1) * laneH - frame.scrollY);
        if (painted < height) {
            Arrays.fill(pixels, Math.max(0, painted) * width, height * width, white);
        }
        // The image shares the pixel array: marking it dirty is all, the texture upload happens
        // on the render thread.
        pixelBuffer.updateBuffer(buffer -> null);
        gc.drawImage(image, frame.gutter(), top);
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
            row[x] = stateArgb[state];
            // The state and its fill in one byte: the overlay pass needs both.
            byte fill = PATTERN[state];
            rowPattern[x] = fill == PATTERN_SOLID ? -1 : (byte) (state << 2 | fill);
        }
    }

    /** Colours a server lane's {@code row} by what each label says (holding, waiting, a value), edges marked. */
    private void fillLabels(Lane lane, int width, int background) {
        int n = lane.labelStart.size();
        int first = Math.max(0, lane.labelStart.floor((long) frame.viewStart));
        double end = frame.viewStart + width * frame.nanosPerPixel;
        int edge = Palette.argb(Palette.of(Ink.OUTLINE));
        int previousX0 = Integer.MIN_VALUE;
        for (int s = first; s < n; s++) {
            long start = lane.labelStart.get(s);
            if (start > end) {
                break;
            }
            long stop = frame.model.labelStop(lane, s);
            if (stop < frame.viewStart) {
                continue;
            }
            int x0 = Math.min(width - 1, Math.max(0, (int) Math.floor((start - frame.viewStart) / frame.nanosPerPixel)));
            int x1 = Math.min(width - 1, (int) Math.floor((stop - frame.viewStart) / frame.nanosPerPixel));
            int color = labelArgb[lane.labelInk.get(s)];
            // An old read drawn on while no new one came is hatched: the view lags there.
            boolean stale = lane.labelStale.get(s) != 0;
            for (int x = x0; x <= x1; x++) {
                row[x] = stale && (x + (int) (frame.viewStart / frame.nanosPerPixel)) % 6 < 3 ? background : color;
            }
            if (x0 != previousX0 && start >= frame.viewStart && lane.labelSaysNew(s)) {
                row[x0] = edge;
            }
            previousX0 = x0;
        }
    }

    /** Colours {@code stripe} with what the server says of the worker's session; false if it says nothing. */
    private boolean fillStripe(Lane lane, int width) {
        int n = lane.stripeStart.size();
        if (n == 0) {
            return false;
        }
        boolean any = false;
        int first = Math.max(0, lane.stripeStart.floor((long) frame.viewStart));
        double end = frame.viewStart + width * frame.nanosPerPixel;
        for (int s = first; s < n; s++) {
            long start = lane.stripeStart.get(s);
            if (start > end) {
                break;
            }
            int state = lane.stripeState.get(s);
            if (state == Lane.SERVER_NONE) {
                continue;
            }
            long stop = frame.model.stripeStop(lane, s);
            if (stop < frame.viewStart) {
                continue;
            }
            int x0 = Math.max(0, (int) Math.floor((start - frame.viewStart) / frame.nanosPerPixel));
            int x1 = Math.min(width - 1, (int) Math.floor((stop - frame.viewStart) / frame.nanosPerPixel));
            int color = state == Lane.SERVER_WAITS ? STRIPE_WAITS : STRIPE_HOLDS;
            for (int x = x0; x <= x1; x++) {
                stripe[x] = color;
            }
            any = true;
        }
        return any;
    }
}
