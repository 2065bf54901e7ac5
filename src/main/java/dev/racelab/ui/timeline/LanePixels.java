package dev.racelab.ui.timeline;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.StateColumns;
import dev.racelab.ui.look.Palette;
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
 * the markers ({@link MarkerSprites}), lane by lane ({@link LaneRaster}). The buffer goes to the
 * canvas in one image.
 *
 * <p>Owned by the FX thread.
 */
final class LanePixels {

    /** The palette's colours as the raster uses them; changed only between frames, on the FX thread. */
    static final class Colours {
        final int[] stateArgb = new int[ActorState.values().length];
        final int[] stateArgbLight = new int[ActorState.values().length];
        final int[] labelArgb = new int[Ink.values().length];
        int band;
        int white;
        int serverBand;
        int edge;
        int stripeWaits;
        int stripeHolds;
    }

    private final TimelineFrame frame;
    private final Colours colours = new Colours();
    private WritableImage image;
    private PixelBuffer<IntBuffer> pixelBuffer;
    private int[] pixels = new int[0];
    private LaneRaster raster;

    LanePixels(TimelineFrame frame) {
        this.frame = frame;
        colours();
    }

    /** Takes up the palette's colours after a change of theme. */
    void themeChanged() {
        colours();
        raster = null;
    }

    /** The palette's colours as this view caches them for its pixel buffers. */
    private void colours() {
        for (ActorState state : ActorState.values()) {
            Color color = Palette.of(state.ink());
            colours.stateArgb[state.ordinal()] = Palette.argb(color);
            colours.stateArgbLight[state.ordinal()] = Palette.argb(Palette.faded(color, 0.55));
        }
        for (Ink ink : Ink.values()) {
            colours.labelArgb[ink.ordinal()] = Palette.argb(switch (ink) {
                case HOLDING -> Palette.faded(Palette.of(Ink.HOLDING), 0.55);
                case WAITING -> Palette.faded(Palette.of(Ink.WAITING), 0.45);
                // A lock no worker owns (SERVER_ORPHANS): the model inks it as a race, as the exports draw it.
                case RACE -> Palette.faded(Palette.of(Ink.RACE), 0.45);
                case OUTLINE -> Palette.faded(Palette.of(Ink.OUTLINE), 0.6);
                default -> Palette.faded(Palette.laneBand(), 0.3);
            });
        }
        colours.band = Palette.argb(Palette.laneBand());
        colours.white = Palette.argb(Palette.background());
        colours.serverBand = Palette.argb(Palette.faded(Palette.of(Ink.HOLDING), 0.9));
        colours.edge = Palette.argb(Palette.of(Ink.OUTLINE));
        colours.stripeWaits = Palette.argb(Palette.of(Ink.WAITING));
        colours.stripeHolds = Palette.argb(Palette.of(Ink.HOLDING));
    }

    void paintSegments(GraphicsContext gc, int firstLane, int lastLane, double laneH, double top,
                       int width, int height) {
        if (width <= 0 || height <= 0) {
            return;
        }
        if (image == null || raster == null || image.getWidth() != width || image.getHeight() != height) {
            pixels = new int[width * height];
            pixelBuffer = new PixelBuffer<>(width, height, IntBuffer.wrap(pixels), PixelFormat.getIntArgbPreInstance());
            image = new WritableImage(pixelBuffer);
            raster = new LaneRaster(frame, colours, pixels, width, height);
        }
        for (int i = firstLane; i <= lastLane; i++) {
            raster.paint(i, laneH);
        }
        int painted = (int) Math.round((lastLane + 1) * laneH - frame.scrollY);
        if (painted < height) {
            Arrays.fill(pixels, Math.max(0, painted) * width, height * width, colours.white);
        }
        // The image shares the pixel array: marking it dirty is all, the texture upload happens
        // on the render thread.
        pixelBuffer.updateBuffer(buffer -> null);
        gc.drawImage(image, frame.gutter(), top);
    }

}
