package dev.racelab.ui.timeline;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.StateColumns;
import dev.racelab.ui.Palette;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelBuffer;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;

import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The lanes' colours, painted into a pixel buffer: one colour per pixel column per lane, the most
 * telling state where many segments fall into one column ({@link StateColumns}), delays hatched and
 * halts barred, the server's stripe under each worker, server lanes coloured by what they read, and
 * the markers ({@link MarkerSprites}). The buffer goes to the canvas in one image.
 *
 * <p>Each lane is rows of its own, so the lanes are shared out between the FX thread and one
 * painter thread, each with its {@link LaneRaster}, taking the next lane as they finish one: with
 * two cores a frame takes about half as long; when the painter is not scheduled in time the FX
 * thread paints every lane itself and waits only for a lane the painter already began.
 *
 * <p>Owned by the FX thread.
 */
final class LanePixels {

    /** Below this many lanes in view, handing some to the painter costs more than it saves. */
    private static final int SHARED_FROM = Integer.getInteger("tmp.shared", 6);

    /** One painter for every timeline in the window: a daemon that reports what it failed at to the frame that asked. */
    private static final ExecutorService PAINTER = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "timeline-painter");
        thread.setDaemon(true);
        return thread;
    });

    /** The palette's colours as the rasters use them; changed only between frames, on the FX thread. */
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
    private LaneRaster mine;
    private LaneRaster painters;

    LanePixels(TimelineFrame frame) {
        this.frame = frame;
        colours();
    }

    /** Takes up the palette's colours after a change of theme. */
    void themeChanged() {
        colours();
        mine = null;
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
        if (image == null || mine == null || image.getWidth() != width || image.getHeight() != height) {
            pixels = new int[width * height];
            pixelBuffer = new PixelBuffer<>(width, height, IntBuffer.wrap(pixels), PixelFormat.getIntArgbPreInstance());
            image = new WritableImage(pixelBuffer);
            mine = new LaneRaster(frame, colours, pixels, width, height);
            painters = new LaneRaster(frame, colours, pixels, width, height);
        }
        paintLanes(firstLane, lastLane, laneH);
        int painted = (int) Math.round((lastLane + 1) * laneH - frame.scrollY);
        if (painted < height) {
            Arrays.fill(pixels, Math.max(0, painted) * width, height * width, colours.white);
        }
        // The image shares the pixel array: marking it dirty is all, the texture upload happens
        // on the render thread.
        pixelBuffer.updateBuffer(buffer -> null);
        gc.drawImage(image, frame.gutter(), top);
    }

    /** Paints lanes {@code firstLane} to {@code lastLane}, shared with the painter when there are enough. */
    private void paintLanes(int firstLane, int lastLane, double laneH) {
        if (lastLane - firstLane + 1 < SHARED_FROM) {
            for (int i = firstLane; i <= lastLane; i++) {
                mine.paint(i, laneH);
            }
            return;
        }
        Share share = new Share(firstLane, lastLane);
        LaneRaster theirs = painters;
        PAINTER.execute(() -> share.take(theirs, laneH));
        share.take(mine, laneH);
        share.awaitBegun();
    }

    /**
     * One frame's lanes, taken one at a time by whoever is free. A painter that comes late finds
     * none left and does nothing; the FX thread waits only for lanes already begun.
     */
    private static final class Share {
        private final AtomicInteger next;
        private final int last;
        private final AtomicInteger unfinished = new AtomicInteger();
        private volatile Throwable failure;

        Share(int first, int last) {
            this.next = new AtomicInteger(first);
            this.last = last;
        }

        void take(LaneRaster raster, double laneH) {
            while (true) {
                unfinished.incrementAndGet();
                int i = next.getAndIncrement();
                try {
                    if (i > last) {
                        return;
                    }
                    raster.paint(i, laneH);
                } catch (Throwable e) {
                    failure = e;
                    next.set(last + 1);
                    return;
                } finally {
                    unfinished.decrementAndGet();
                }
            }
        }

        /** Waits until no lane is being painted (every lane is taken by now), then reports a painter's failure. */
        void awaitBegun() {
            int spins = 0;
            while (unfinished.get() > 0) {
                if (++spins < 200) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(20_000);
                }
            }
            Throwable failed = failure;
            if (failed instanceof RuntimeException e) {
                throw e;
            }
            if (failed instanceof Error e) {
                throw e;
            }
            if (failed != null) {
                throw new IllegalStateException(failed);
            }
        }
    }
}
