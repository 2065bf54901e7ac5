package dev.racelab.engine.view;

import dev.racelab.engine.Ink;

/**
 * A small drawing surface a lab paints its picture on (the counter row, the book, the
 * philosophers' table), without knowing which toolkit shows it. Coordinates are in pixels with
 * the origin top left; text sizes are multiples of the window's base font size, so pictures grow
 * with the user's font settings and presenter mode.
 */
public interface Sketch {

    enum Align { LEFT, CENTER, RIGHT }

    double width();

    double height();

    /** The base font size in pixels, to size shapes that must fit text. */
    double em();

    /** Sets the ink for the next fills and texts. */
    Sketch fill(Ink ink);

    /** Sets the ink and line width (in pixels) for the next outlines and lines. */
    Sketch stroke(Ink ink, double width);

    void fillRect(double x, double y, double w, double h);

    void strokeRect(double x, double y, double w, double h);

    void fillRoundRect(double x, double y, double w, double h, double radius);

    void strokeRoundRect(double x, double y, double w, double h, double radius);

    void fillCircle(double cx, double cy, double r);

    void strokeCircle(double cx, double cy, double r);

    void line(double x1, double y1, double x2, double y2);

    /** A card: a rounded box in the surface ink with an outline, the frame of most pictures' parts. */
    default void card(double x, double y, double w, double h) {
        fill(Ink.SURFACE).fillRoundRect(x, y, w, h, em() * 0.4);
        stroke(Ink.OUTLINE, 1).strokeRoundRect(x, y, w, h, em() * 0.4);
    }

    /** A line with an arrow head at its end. */
    void arrow(double x1, double y1, double x2, double y2);

    /**
     * Writes one line of text with its baseline at {@code y}.
     *
     * @param size multiple of the base font size
     * @param bold whether to write it bold
     */
    void text(String text, double x, double y, double size, boolean bold, Align align);
}
