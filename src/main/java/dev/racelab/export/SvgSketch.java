package dev.racelab.export;

import dev.racelab.engine.Ink;
import dev.racelab.engine.Printable;
import dev.racelab.engine.view.Sketch;
import dev.racelab.engine.view.Theme;

import java.io.BufferedWriter;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A {@link Sketch} written as SVG, with its words as real text (selectable, searchable, sharp at
 * any size on a slide). Coordinates are pixels, as on the window's canvas. Written to its stream as
 * it is drawn, so a drawing of many shapes is never held whole; {@link #finish} ends it.
 */
public final class SvgSketch extends Drawing {

    static final String FONT = "DejaVu Sans, Helvetica, Arial, sans-serif";

    private final PrintWriter svg;
    private String fill;
    private int clips;

    /** A document on the theme's background, begun on {@code out}. */
    public SvgSketch(OutputStream out, double width, double height, double em, Theme theme) {
        super(width, height, em, theme);
        this.fill = theme.hex(Ink.TEXT);
        this.svg = new PrintWriter(new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16));
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                .append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(n(width)).append("\" height=\"")
                .append(n(height)).append("\" viewBox=\"0 0 ").append(n(width)).append(" ").append(n(height))
                .append("\" font-family=\"").append(FONT).append("\">\n")
                .append("<rect width=\"100%\" height=\"100%\" fill=\"").append(theme.background()).append("\"/>\n");
    }

    /** Ends the document and writes out what is left of it. */
    public void finish() throws IOException {
        svg.append("</svg>\n");
        svg.flush();
        if (svg.checkError()) {
            throw new IOException("the picture could not be written whole");
        }
    }

    @Override
    public Sketch fill(Ink ink) {
        fill = theme.hex(ink);
        return this;
    }

    @Override
    public void fillRect(double x, double y, double w, double h) {
        svg.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" fill=\"").append(fill).append("\"/>\n");
    }

    @Override
    public void strokeRect(double x, double y, double w, double h) {
        svg.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" fill=\"none\"").append(strokeAttributes()).append("/>\n");
    }

    @Override
    public void fillRoundRect(double x, double y, double w, double h, double radius) {
        roundRect(x, y, w, h, radius, fill, 1);
    }

    @Override
    public void strokeRoundRect(double x, double y, double w, double h, double radius) {
        svg.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" rx=\"").append(n(radius)).append("\" fill=\"none\"")
                .append(strokeAttributes()).append("/>\n");
    }

    @Override
    public void fillCircle(double cx, double cy, double r) {
        svg.append("<circle cx=\"").append(n(cx)).append("\" cy=\"").append(n(cy)).append("\" r=\"").append(n(r))
                .append("\" fill=\"").append(fill).append("\"/>\n");
    }

    @Override
    public void strokeCircle(double cx, double cy, double r) {
        svg.append("<circle cx=\"").append(n(cx)).append("\" cy=\"").append(n(cy)).append("\" r=\"").append(n(r))
                .append("\" fill=\"none\"").append(strokeAttributes()).append("/>\n");
    }

    @Override
    public void text(String text, double x, double y, double size, boolean bold, Align align) {
        text(text, x, y, em * size, bold, align, fill);
    }

    @Override
    public void rect(double x, double y, double w, double h, String hex, double opacity) {
        svg.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" fill=\"").append(hex).append('"')
                .append(opacity < 1 ? " fill-opacity=\"" + n(opacity) + "\"" : "").append("/>\n");
    }

    @Override
    void line(double x1, double y1, double x2, double y2, String hex, double lineWidth, double opacity, double dash) {
        svg.append("<line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2))
                .append("\" y2=\"").append(n(y2)).append("\" stroke=\"").append(hex).append("\" stroke-width=\"")
                .append(n(lineWidth)).append('"')
                .append(opacity < 1 ? " stroke-opacity=\"" + n(opacity) + "\"" : "")
                .append(dash > 0 ? " stroke-dasharray=\"" + n(dash) + "\"" : "").append("/>\n");
    }

    @Override
    void roundRect(double x, double y, double w, double h, double radius, String hex, double opacity) {
        svg.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" rx=\"").append(n(radius)).append("\" fill=\"")
                .append(hex).append('"').append(opacity < 1 ? " fill-opacity=\"" + n(opacity) + "\"" : "")
                .append("/>\n");
    }

    @Override
    void text(String text, double x, double y, double px, boolean bold, Align align, String hex, double opacity,
              double maxWidth) {
        svg.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" font-size=\"")
                .append(n(px)).append('"').append(bold ? " font-weight=\"bold\"" : "")
                .append(switch (align) {
                    case LEFT -> "";
                    case CENTER -> " text-anchor=\"middle\"";
                    case RIGHT -> " text-anchor=\"end\"";
                }).append(opacity < 1 ? " fill-opacity=\"" + n(opacity) + "\"" : "")
                .append(maxWidth > 0 && textWidth(text, px) > maxWidth
                        ? " textLength=\"" + n(maxWidth) + "\" lengthAdjust=\"spacingAndGlyphs\"" : "")
                .append(" fill=\"").append(hex).append("\">").append(escape(text)).append("</text>\n");
    }

    /** The lanes' pixels as one PNG image in the document, kept sharp when scaled (no smoothing). */
    @Override
    public void pixels(int[] argb, int w, int h, double x, double y) {
        BufferedImage lanes = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB_PRE);
        System.arraycopy(argb, 0, ((java.awt.image.DataBufferInt) lanes.getRaster().getDataBuffer()).getData(), 0,
                w * h);
        java.io.ByteArrayOutputStream png = new java.io.ByteArrayOutputStream();
        try {
            javax.imageio.ImageIO.write(lanes, "png", png);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        svg.append("<image x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,")
                .append(java.util.Base64.getEncoder().encodeToString(png.toByteArray())).append("\"/>\n");
    }

    @Override
    public void text(String text, double x, double y, double px, boolean bold, Align align, String hex) {
        text(text, x, y, px, bold, align, hex, 1, 0);
    }

    @Override
    public void circle(double cx, double cy, double r, String hex, double lineWidth) {
        svg.append("<circle cx=\"").append(n(cx)).append("\" cy=\"").append(n(cy)).append("\" r=\"").append(n(r))
                .append('"').append(lineWidth > 0 ? " fill=\"none\" stroke=\"" + hex + "\" stroke-width=\"" + n(lineWidth)
                        + "\"" : " fill=\"" + hex + "\"").append("/>\n");
    }

    @Override
    public void clipped(double x, double y, double w, double h, Runnable inside) {
        String id = "c" + (++clips);
        svg.append("<clipPath id=\"").append(id).append("\"><rect x=\"").append(n(x)).append("\" y=\"").append(n(y))
                .append("\" width=\"").append(n(w)).append("\" height=\"").append(n(h)).append("\"/></clipPath>\n");
        svg.append("<g clip-path=\"url(#").append(id).append(")\">\n");
        inside.run();
        svg.append("</g>\n");
    }

    private String strokeAttributes() {
        return " stroke=\"" + strokeHex + "\" stroke-width=\"" + n(strokeWidth) + "\"";
    }

    /** A number with at most two decimals, in the form SVG reads whatever the locale. */
    static String n(double value) {
        String text = String.format(Locale.ROOT, "%.2f", value);
        text = text.contains(".") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
        return text.equals("-0") ? "0" : text;
    }

    /**
     * Text as XML character data or an attribute value: control characters, which XML 1.0 does not
     * allow or a viewer would act on, shown as escapes ({@link Printable#line}).
     */
    static String escape(String raw) {
        String text = Printable.line(raw);
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    @Override
    void shifted(double dy, Runnable inside) {
        svg.append("<g transform=\"translate(0 ").append(n(dy)).append(")\">\n");
        inside.run();
        svg.append("</g>\n");
    }
}
