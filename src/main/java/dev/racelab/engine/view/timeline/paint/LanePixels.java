package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.StateColumns;
import dev.racelab.engine.view.timeline.TimelineModel;

import java.util.Arrays;

/**
 * The lanes' colours, painted into one buffer of pixels: one colour per pixel column per lane,
 * the most telling state where many segments fall into one column ({@link StateColumns}), delays
 * hatched and halts barred, the server's stripe under each worker, server lanes coloured by what
 * they read, and the markers ({@link MarkerSprites}), lane by lane ({@link LaneRaster}). The
 * buffer is placed on the surface as one image: a million events cost array writes.
 *
 * <p>One thread at a time, as its {@link TimelinePainter}.
 */
final class LanePixels {

    /** The colours as the raster uses them (premultiplied ARGB). */
    static final class Colours {
        final int[] stateArgb = new int[ActorState.values().length];
        final int[] stateArgbLight = new int[ActorState.values().length];
        final int[] labelArgb = new int[Ink.values().length];
        final int[] markArgb;
        int band;
        int white;
        int serverBand;
        int edge;
        int stripeWaits;
        int stripeHolds;

        Colours(PaintColours colours) {
            for (ActorState state : ActorState.values()) {
                int colour = colours.of(state.ink());
                stateArgb[state.ordinal()] = colour;
                stateArgbLight[state.ordinal()] = colours.faded(colour, 0.55);
            }
            for (Ink ink : Ink.values()) {
                labelArgb[ink.ordinal()] = switch (ink) {
                    case HOLDING -> colours.faded(Ink.HOLDING, 0.55);
                    case WAITING -> colours.faded(Ink.WAITING, 0.45);
                    // A lock no worker owns (SERVER_ORPHANS): the model inks it as a race.
                    case RACE -> colours.faded(Ink.RACE, 0.45);
                    case OUTLINE -> colours.faded(Ink.OUTLINE, 0.6);
                    default -> colours.faded(colours.band(), 0.3);
                };
            }
            markArgb = MarkerSprites.inks(colours);
            band = colours.band();
            white = colours.background();
            serverBand = colours.faded(Ink.HOLDING, 0.9);
            edge = colours.of(Ink.OUTLINE);
            stripeWaits = colours.of(Ink.WAITING);
            stripeHolds = colours.of(Ink.HOLDING);
        }
    }

    private final TimelineLayout layout;
    private Colours colours;
    private int[] pixels = new int[0];
    private int width;
    private int height;
    private LaneRaster raster;
    private Painted painted;

    LanePixels(TimelineLayout layout, PaintColours colours) {
        this.layout = layout;
        this.colours = new Colours(colours);
    }

    /** Takes up another theme's colours. */
    void colours(PaintColours next) {
        colours = new Colours(next);
        raster = null;
    }

    /**
     * What the buffer was last painted from: the model as of its revision, the view, the lanes
     * in view and their order. The same again, the buffer is the same: a frame that only moves the
     * hover or marks a selection costs no repainting of the lanes, however many events they hold.
     */
    private static final class Painted {
        private final TimelineModel model;
        private final long revision;
        private final double viewStart;
        private final double nanosPerPixel;
        private final long now;
        private final double scrollY;
        private final int firstLane;
        private final int lastLane;
        private final double laneH;
        private final int[] order;

        Painted(TimelineLayout layout, int firstLane, int lastLane, double laneH) {
            model = layout.model;
            revision = model.revision();
            viewStart = layout.viewStart;
            nanosPerPixel = layout.nanosPerPixel;
            now = layout.now;
            scrollY = layout.scrollY;
            this.firstLane = firstLane;
            this.lastLane = lastLane;
            this.laneH = laneH;
            order = layout.order.clone();
        }

        boolean same(Painted before) {
            return before != null && before.model == model && before.revision == revision
                    && before.viewStart == viewStart && before.nanosPerPixel == nanosPerPixel && before.now == now
                    && before.scrollY == scrollY && before.firstLane == firstLane && before.lastLane == lastLane
                    && before.laneH == laneH && Arrays.equals(before.order, order);
        }
    }

    /**
     * Paints the lanes from {@code firstLane} to {@code lastLane} into a buffer {@code width} ×
     * {@code height} (the lanes' area), rows below the last lane in the background's colour.
     */
    int[] paint(int firstLane, int lastLane, double laneH, int width, int height) {
        if (raster == null || this.width != width || this.height != height) {
            this.width = width;
            this.height = height;
            pixels = new int[width * height];
            raster = new LaneRaster(layout, colours, pixels, width, height);
            painted = null;
        }
        Painted now = new Painted(layout, firstLane, lastLane, laneH);
        if (now.same(painted)) {
            // Nothing the lanes' pixels show has changed (the pointer moved, a lane was selected): as they are.
            return pixels;
        }
        painted = now;
        for (int i = firstLane; i <= lastLane; i++) {
            raster.paint(i, laneH);
        }
        int painted = (int) Math.round((lastLane + 1) * laneH - layout.scrollY);
        if (painted < height) {
            Arrays.fill(pixels, Math.max(0, painted) * width, height * width, colours.white);
        }
        return pixels;
    }
}
