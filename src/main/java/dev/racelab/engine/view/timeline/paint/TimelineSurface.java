package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.view.Sketch.Align;

/**
 * What the timeline's painter draws on: the window's canvas, a PNG's image, an SVG document.
 * Colours are ARGB (not premultiplied; an alpha below 255 is see-through); text sizes are in
 * pixels. The lanes come as one raster of premultiplied ARGB pixels, which the window shows as an
 * image and the exports place as one.
 */
public interface TimelineSurface {

    /** Where a text's {@code y} is: its baseline, its middle, or its bottom. */
    enum Baseline { ALPHABETIC, CENTER, BOTTOM }

    void fillRect(double x, double y, double w, double h, int argb);

    /** A rectangle with round corners, {@code arc} the corners' diameter (as JavaFX and Java2D take it). */
    void fillRoundRect(double x, double y, double w, double h, double arc, int argb);

    void fillCircle(double cx, double cy, double r, int argb);

    void strokeCircle(double cx, double cy, double r, int argb, double width);

    /** A line {@code width} wide; dashed {@code dash} on, {@code dash} off where {@code dash > 0}. */
    void line(double x1, double y1, double x2, double y2, int argb, double width, double dash);

    /** One line of text {@code px} pixels high, no wider than {@code maxWidth} (0: as wide as it is). */
    void text(String text, double x, double y, double px, boolean bold, Align align, Baseline baseline, int argb,
              double maxWidth);

    /** Places {@code w} × {@code h} premultiplied ARGB pixels with their top left at ({@code x}, {@code y}). */
    void pixels(int[] argb, int w, int h, double x, double y);

    /** A line with an arrow head {@code head} pixels long at its end. */
    default void arrow(double x1, double y1, double x2, double y2, int argb, double width, double head) {
        line(x1, y1, x2, y2, argb, width, 0);
        double angle = Math.atan2(y2 - y1, x2 - x1);
        double spread = Math.toRadians(25);
        line(x2, y2, x2 - head * Math.cos(angle - spread), y2 - head * Math.sin(angle - spread), argb, width, 0);
        line(x2, y2, x2 - head * Math.cos(angle + spread), y2 - head * Math.sin(angle + spread), argb, width, 0);
    }
}
