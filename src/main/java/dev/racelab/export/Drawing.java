package dev.racelab.export;

import dev.racelab.engine.Ink;
import dev.racelab.engine.view.Sketch;
import dev.racelab.engine.view.Theme;
import dev.racelab.engine.view.timeline.paint.TimelineSurface;

/**
 * What the SVG and the image surfaces share: their size, the base font size, the theme, the
 * current stroke, and arrows drawn from lines; and the timeline painter's drawing in ARGB
 * ({@link TimelineSurface}), put in the theme's terms (a colour and an opacity).
 */
abstract class Drawing implements Surface, TimelineSurface {

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

    @Override
    public void line(double x1, double y1, double x2, double y2, String hex, double lineWidth, double opacity) {
        line(x1, y1, x2, y2, hex, lineWidth, opacity, 0);
    }

    /** A line, dashed {@code dash} on and off where {@code dash > 0}. */
    abstract void line(double x1, double y1, double x2, double y2, String hex, double lineWidth, double opacity,
                       double dash);

    abstract void roundRect(double x, double y, double w, double h, double radius, String hex, double opacity);

    /** Text with its baseline at {@code y}, squeezed to {@code maxWidth} where that is above 0 and it is wider. */
    abstract void text(String text, double x, double y, double px, boolean bold, Align align, String hex,
                       double opacity, double maxWidth);

    private static String hex(int argb) {
        return String.format("#%06x", argb & 0xffffff);
    }

    private static double opacity(int argb) {
        return ((argb >>> 24) & 0xff) / 255.0;
    }

    @Override
    public void fillRect(double x, double y, double w, double h, int argb) {
        rect(x, y, w, h, hex(argb), opacity(argb));
    }

    @Override
    public void fillRoundRect(double x, double y, double w, double h, double arc, int argb) {
        roundRect(x, y, w, h, arc / 2, hex(argb), opacity(argb));
    }

    @Override
    public void fillCircle(double cx, double cy, double r, int argb) {
        circle(cx, cy, r, hex(argb), 0);
    }

    @Override
    public void strokeCircle(double cx, double cy, double r, int argb, double lineWidth) {
        circle(cx, cy, r, hex(argb), lineWidth);
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, int argb, double lineWidth, double dash) {
        line(x1, y1, x2, y2, hex(argb), lineWidth, opacity(argb), dash);
    }

    /**
     * Text placed as the window's canvas places it: its baseline where JavaFX puts it for a text
     * centred on {@code y} or ending at it (DejaVu Sans: ascent 0.93, descent 0.24 of its size).
     */
    @Override
    public void text(String text, double x, double y, double px, boolean bold, Align align, Baseline baseline,
                     int argb, double maxWidth) {
        double base = switch (baseline) {
            case ALPHABETIC -> y;
            case CENTER -> y + px * 0.345;
            case BOTTOM -> y - px * 0.24;
        };
        text(text, x, base, px, bold, align, hex(argb), opacity(argb), maxWidth);
    }

    /** Draws what {@code inside} draws {@code dy} pixels lower. */
    abstract void shifted(double dy, Runnable inside);
}
