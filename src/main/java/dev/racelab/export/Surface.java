package dev.racelab.export;

import dev.racelab.engine.Printable;
import dev.racelab.engine.view.Sketch;

/**
 * What the timeline's export draws with, beyond a lab's {@link Sketch}: any colour of the theme's
 * at an opacity (the timeline's light bands and hatching), lines of any colour, text in a colour,
 * and a clip to a rectangle (a lane's words never spill into the next label). Implemented by the
 * SVG and the image sketches.
 */
interface Surface extends Sketch {

    void rect(double x, double y, double w, double h, String hex, double opacity);

    void line(double x1, double y1, double x2, double y2, String hex, double width, double opacity);

    void text(String text, double x, double y, double px, boolean bold, Align align, String hex);

    /** A circle filled with {@code hex}, or outlined {@code width} wide when {@code width > 0}. */
    void circle(double cx, double cy, double r, String hex, double width);

    /** A line with an arrow head at its end, in {@code hex}. */
    void arrow(double x1, double y1, double x2, double y2, String hex, double width);

    /** Draws what {@code inside} draws, cut to the rectangle. */
    void clipped(double x, double y, double w, double h, Runnable inside);

    /** About how wide {@code text} is at {@code px} pixels as drawn (its controls as escapes), for fitting words into a label. */
    default double textWidth(String text, double px) {
        return Printable.line(text).length() * px * 0.56;
    }
}
