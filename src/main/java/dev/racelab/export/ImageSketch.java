package dev.racelab.export;

import dev.racelab.engine.Ink;
import dev.racelab.engine.Printable;
import dev.racelab.engine.view.Sketch;
import dev.racelab.engine.view.Theme;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.geom.RoundRectangle2D;
import java.awt.image.BufferedImage;

/**
 * A {@link Sketch} drawn into an image with Java2D (headless: no window, no JavaFX), at a scale:
 * the drawing's pixels are the window's, the image's are {@code scale} times as many, for a sharp
 * slide. Text is drawn as the SVG writes it: a file's control characters as visible escapes
 * ({@link Printable#line}), so a right-to-left override in a recording turns nothing around.
 */
public final class ImageSketch extends Drawing {

    private final BufferedImage image;
    private final Graphics2D g;
    private Color fill;

    public ImageSketch(double width, double height, double em, double scale, Theme theme) {
        super(width, height, em, theme);
        this.image = new BufferedImage((int) Math.ceil(width * scale), (int) Math.ceil(height * scale),
                BufferedImage.TYPE_INT_RGB);
        this.g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
        g.setColor(color(theme.background()));
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.scale(scale, scale);
        fill = color(theme.hex(Ink.TEXT));
    }

    /** The image drawn so far. */
    public BufferedImage image() {
        return image;
    }

    /** The Java2D context, in the drawing's pixels (for the timeline's own drawing). */
    Graphics2D graphics() {
        return g;
    }

    static Color color(String hex) {
        return new Color(Theme.rgb(hex));
    }

    @Override
    public Sketch fill(Ink ink) {
        fill = color(theme.hex(ink));
        return this;
    }

    @Override
    public void fillRect(double x, double y, double w, double h) {
        g.setColor(fill);
        g.fill(new Rectangle2D.Double(x, y, w, h));
    }

    @Override
    public void strokeRect(double x, double y, double w, double h) {
        g.setColor(color(strokeHex, 1));
        g.setStroke(new BasicStroke((float) strokeWidth));
        g.draw(new Rectangle2D.Double(x, y, w, h));
    }

    @Override
    public void fillRoundRect(double x, double y, double w, double h, double radius) {
        g.setColor(fill);
        g.fill(new RoundRectangle2D.Double(x, y, w, h, 2 * radius, 2 * radius));
    }

    @Override
    public void strokeRoundRect(double x, double y, double w, double h, double radius) {
        g.setColor(color(strokeHex, 1));
        g.setStroke(new BasicStroke((float) strokeWidth));
        g.draw(new RoundRectangle2D.Double(x, y, w, h, 2 * radius, 2 * radius));
    }

    @Override
    public void fillCircle(double cx, double cy, double r) {
        g.setColor(fill);
        g.fill(new Ellipse2D.Double(cx - r, cy - r, 2 * r, 2 * r));
    }

    @Override
    public void strokeCircle(double cx, double cy, double r) {
        g.setColor(color(strokeHex, 1));
        g.setStroke(new BasicStroke((float) strokeWidth));
        g.draw(new Ellipse2D.Double(cx - r, cy - r, 2 * r, 2 * r));
    }

    @Override
    public void text(String text, double x, double y, double size, boolean bold, Align align) {
        draw(text, x, y, em * size, bold, align, fill);
    }

    @Override
    public void rect(double x, double y, double w, double h, String hex, double opacity) {
        g.setColor(color(hex, opacity));
        g.fill(new Rectangle2D.Double(x, y, w, h));
    }

    @Override
    void line(double x1, double y1, double x2, double y2, String hex, double lineWidth, double opacity, double dash) {
        java.awt.Stroke before = g.getStroke();
        g.setStroke(dash > 0 ? new BasicStroke((float) lineWidth, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10,
                new float[] {(float) dash, (float) dash}, 0) : new BasicStroke((float) lineWidth));
        g.setColor(color(hex, opacity));
        g.draw(new Line2D.Double(x1, y1, x2, y2));
        g.setStroke(before);
    }

    @Override
    void roundRect(double x, double y, double w, double h, double radius, String hex, double opacity) {
        g.setColor(color(hex, opacity));
        g.fill(new RoundRectangle2D.Double(x, y, w, h, 2 * radius, 2 * radius));
    }

    @Override
    void text(String raw, double x, double y, double px, boolean bold, Align align, String hex, double opacity,
              double maxWidth) {
        String text = Printable.line(raw);
        g.setFont(font(bold, px));
        double w = g.getFontMetrics().getStringBounds(text, g).getWidth();
        if (maxWidth <= 0 || w <= maxWidth) {
            draw(raw, x, y, px, bold, align, color(hex, opacity));
            return;
        }
        // Squeezed to fit, as the window's canvas squeezes a name into the gutter.
        java.awt.geom.AffineTransform before = g.getTransform();
        double left = switch (align) {
            case LEFT -> x;
            case CENTER -> x - maxWidth / 2;
            case RIGHT -> x - maxWidth;
        };
        g.translate(left, y);
        g.scale(maxWidth / w, 1);
        g.setColor(color(hex, opacity));
        g.drawString(text, 0f, 0f);
        g.setTransform(before);
    }

    /** The lanes' pixels, each an image pixel at scale 1 (a larger scale repeats them: no blur). */
    @Override
    public void pixels(int[] argb, int w, int h, double x, double y) {
        BufferedImage lanes = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB_PRE);
        System.arraycopy(argb, 0, ((java.awt.image.DataBufferInt) lanes.getRaster().getDataBuffer()).getData(), 0,
                w * h);
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_NEAREST_NEIGHBOR);
        g.drawImage(lanes, (int) Math.round(x), (int) Math.round(y), null);
    }

    @Override
    public void text(String text, double x, double y, double px, boolean bold, Align align, String hex) {
        draw(text, x, y, px, bold, align, color(hex, 1));
    }

    @Override
    public void circle(double cx, double cy, double r, String hex, double lineWidth) {
        g.setColor(color(hex, 1));
        Ellipse2D.Double circle = new Ellipse2D.Double(cx - r, cy - r, 2 * r, 2 * r);
        if (lineWidth > 0) {
            java.awt.Stroke before = g.getStroke();
            g.setStroke(new BasicStroke((float) lineWidth));
            g.draw(circle);
            g.setStroke(before);
        } else {
            g.fill(circle);
        }
    }

    @Override
    public void clipped(double x, double y, double w, double h, Runnable inside) {
        java.awt.Shape before = g.getClip();
        g.clip(new Rectangle2D.Double(x, y, w, h));
        try {
            inside.run();
        } finally {
            g.setClip(before);
        }
    }

    @Override
    public double textWidth(String text, double px) {
        return g.getFontMetrics(font(false, px)).getStringBounds(Printable.line(text), g).getWidth();
    }

    private void draw(String raw, double x, double y, double px, boolean bold, Align align, Color color) {
        String text = Printable.line(raw);
        g.setFont(font(bold, px));
        g.setColor(color);
        double w = g.getFontMetrics().getStringBounds(text, g).getWidth();
        double left = switch (align) {
            case LEFT -> x;
            case CENTER -> x - w / 2;
            case RIGHT -> x - w;
        };
        g.drawString(text, (float) left, (float) y);
    }

    private static Font font(boolean bold, double px) {
        return new Font("DejaVu Sans", bold ? Font.BOLD : Font.PLAIN, 1).deriveFont((float) px);
    }

    private static Color color(String hex, double opacity) {
        int rgb = Theme.rgb(hex);
        return new Color(rgb >> 16 & 0xff, rgb >> 8 & 0xff, rgb & 0xff, (int) Math.round(255 * opacity));
    }

    @Override
    void shifted(double dy, Runnable inside) {
        g.translate(0, dy);
        try {
            inside.run();
        } finally {
            g.translate(0, -dy);
        }
    }
}
