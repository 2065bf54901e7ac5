package dev.racelab.ui.timeline;

import dev.racelab.engine.view.Sketch.Align;
import dev.racelab.engine.view.timeline.paint.TimelineSurface;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelBuffer;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;

import java.nio.IntBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The timeline's painter drawing on the window's canvas: colours and fonts made once and kept
 * (drawing asks for the same few every frame), and the lanes' pixels shown through an image that
 * shares their array, so a frame uploads them without a copy. Owned by the FX thread.
 */
final class FxSurface implements TimelineSurface {

    private final GraphicsContext gc;
    private final Map<Integer, Color> colours = new HashMap<>();
    private final Map<Long, Font> fonts = new HashMap<>();
    /** What the context is set to now: each is set only when it changes (every set is a command the canvas keeps). */
    private int fill = 1;
    private int stroke = 1;
    private double lineWidth = -1;
    private Font font;
    private Align align;
    private Baseline baseline;
    private int[] shown;
    private PixelBuffer<IntBuffer> buffer;
    private WritableImage image;

    FxSurface(GraphicsContext gc) {
        this.gc = gc;
    }

    /**
     * Forgets what the context was set to: a frame's first use of each sets it again (another
     * drawer, the hover box, changes the context after the painter).
     */
    void newFrame() {
        fill = 1;
        stroke = 1;
        lineWidth = -1;
        font = null;
        align = null;
        baseline = null;
    }

    private void fill(int argb) {
        if (argb != fill) {
            fill = argb;
            gc.setFill(colour(argb));
        }
    }

    private void stroke(int argb, double width) {
        if (argb != stroke) {
            stroke = argb;
            gc.setStroke(colour(argb));
        }
        if (width != lineWidth) {
            lineWidth = width;
            gc.setLineWidth(width);
        }
    }

    private Color colour(int argb) {
        return colours.computeIfAbsent(argb, c -> Color.rgb((c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff,
                ((c >>> 24) & 0xff) / 255.0));
    }

    /** The base font {@code px} pixels high, bold or not. */
    Font font(double px, boolean bold) {
        long key = Math.round(px * 100) * 2 + (bold ? 1 : 0);
        return fonts.computeIfAbsent(key, k -> Font.font(Font.getDefault().getFamily(),
                bold ? FontWeight.BOLD : FontWeight.NORMAL, px));
    }

    @Override
    public void fillRect(double x, double y, double w, double h, int argb) {
        fill(argb);
        gc.fillRect(x, y, w, h);
    }

    @Override
    public void fillRoundRect(double x, double y, double w, double h, double arc, int argb) {
        fill(argb);
        gc.fillRoundRect(x, y, w, h, arc, arc);
    }

    @Override
    public void fillCircle(double cx, double cy, double r, int argb) {
        fill(argb);
        gc.fillOval(cx - r, cy - r, 2 * r, 2 * r);
    }

    @Override
    public void strokeCircle(double cx, double cy, double r, int argb, double width) {
        stroke(argb, width);
        gc.strokeOval(cx - r, cy - r, 2 * r, 2 * r);
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, int argb, double width, double dash) {
        stroke(argb, width);
        if (dash > 0) {
            gc.setLineDashes(dash, dash);
        }
        gc.strokeLine(x1, y1, x2, y2);
        if (dash > 0) {
            gc.setLineDashes();
        }
    }

    @Override
    public void text(String text, double x, double y, double px, boolean bold, Align align, Baseline baseline,
                     int argb, double maxWidth) {
        Font wanted = font(px, bold);
        if (wanted != font) {
            font = wanted;
            gc.setFont(wanted);
        }
        fill(argb);
        if (align != this.align) {
            this.align = align;
            gc.setTextAlign(switch (align) {
                case LEFT -> TextAlignment.LEFT;
                case CENTER -> TextAlignment.CENTER;
                case RIGHT -> TextAlignment.RIGHT;
            });
        }
        if (baseline != this.baseline) {
            this.baseline = baseline;
            gc.setTextBaseline(switch (baseline) {
                case ALPHABETIC -> VPos.BASELINE;
                case CENTER -> VPos.CENTER;
                case BOTTOM -> VPos.BOTTOM;
            });
        }
        if (maxWidth > 0) {
            gc.fillText(text, x, y, maxWidth);
        } else {
            gc.fillText(text, x, y);
        }
    }

    @Override
    public void pixels(int[] argb, int w, int h, double x, double y) {
        if (argb != shown || image == null || (int) image.getWidth() != w || (int) image.getHeight() != h) {
            shown = argb;
            buffer = new PixelBuffer<>(w, h, IntBuffer.wrap(argb), PixelFormat.getIntArgbPreInstance());
            image = new WritableImage(buffer);
        } else {
            // The image shares the pixel array: marking it dirty is all, the texture upload happens
            // on the render thread.
            buffer.updateBuffer(b -> null);
        }
        gc.drawImage(image, x, y);
    }
}
