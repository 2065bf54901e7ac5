package dev.racelab.export;

import dev.racelab.engine.Ink;
import dev.racelab.engine.view.Sketch;
import dev.racelab.engine.view.Theme;

/**
 * What the SVG and the image surfaces share: their size, the base font size, the theme, the
 * current stroke, and arrows drawn from lines.
 */
abstract class Drawing implements Surface {

    protected final double width;
    protected final double height;
    protected final double em;
    protected final Theme theme;
    protected String strokeHex;
    protected double strokeWidth = 1;

    Drawing(double width, double height, double em, Theme theme) {
        this.width = width;
        this.height = height;
        this.em = em;
        this.theme = theme;
        this.strokeHex = theme.hex(Ink.TEXT);
    }

    @Override
    public double width() {
        return width;
    }

    @Override
    public double height() {
        return height;
    }

    @Override
    public double em() {
        return em;
    }

    @Override
    public Sketch stroke(Ink ink, double lineWidth) {
        strokeHex = theme.hex(ink);
        strokeWidth = lineWidth;
        return this;
    }

    @Override
    public void line(double x1, double y1, double x2, double y2) {
        line(x1, y1, x2, y2, strokeHex, strokeWidth, 1);
    }

    @Override
    public void arrow(double x1, double y1, double x2, double y2) {
        arrow(x1, y1, x2, y2, strokeHex, strokeWidth);
    }

    /** A line with a head at its end, in the window's proportions (a head of half an em, 25° each side). */
    @Override
    public void arrow(double x1, double y1, double x2, double y2, String hex, double lineWidth) {
        line(x1, y1, x2, y2, hex, lineWidth, 1);
        double head = Math.max(6, em * 0.5);
        double angle = Math.atan2(y2 - y1, x2 - x1);
        double spread = Math.toRadians(25);
        line(x2, y2, x2 - head * Math.cos(angle - spread), y2 - head * Math.sin(angle - spread), hex, lineWidth, 1);
        line(x2, y2, x2 - head * Math.cos(angle + spread), y2 - head * Math.sin(angle + spread), hex, lineWidth, 1);
    }
}
