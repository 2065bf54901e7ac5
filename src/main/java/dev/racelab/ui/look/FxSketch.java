package dev.racelab.ui.look;

import dev.racelab.engine.Ink;
import dev.racelab.engine.view.Sketch;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;

/** A lab's {@link Sketch} drawn on a JavaFX canvas. Used on the FX thread only. */
public final class FxSketch implements Sketch {

    private final Canvas canvas;
    private final GraphicsContext gc;
    private final double em;

    public FxSketch(Canvas canvas, double em) {
        this.canvas = canvas;
        this.gc = canvas.getGraphicsContext2D();
        this.em = em;
        gc.setTextBaseline(VPos.BASELINE);
    }

    @Override
    public double width() {
        return canvas.getWidth();
    }

    @Override
    public double height() {
        return canvas.getHeight();
    }

    @Override
    public double em() {
        return em;
    }

    @Override
    public Sketch fill(Ink ink) {
        gc.setFill(Palette.of(ink));
        return this;
    }

    @Override
    public Sketch stroke(Ink ink, double width) {
        gc.setStroke(Palette.of(ink));
        gc.setLineWidth(width);
        return this;
    }

    @Override
    public void fillRect(double x, double y, double w, double h) {
        gc.fillRect(x, y, w, h);
    }

    @Override
    public void strokeRect(double x, double y, double w, double h) {
        gc.strokeRect(x, y, w, h);
    }

    @Override
    public void fillRoundRect(double x, double y, double w, double h, double radius) {
        gc.fillRoundRect(x, y, w, h, 2 * radius, 2 * radius);
    }

    @Override
    public void strokeRoundRect(double x, double y, double w, double h, double radius) {
        gc.strokeRoundRect(x, y, w, h, 2 * radius, 2 * radius);
    }

    @Override
    public void fillCircle(double cx, double cy, double r) {
        gc.fillOval(cx - r, cy - r, 2 * r, 2 * r);
    }

    @Override
    public void strokeCircle(double cx, double cy, double r) {
        gc.strokeOval(cx - r, cy - r, 2 * r, 2 * r);
    }

    @Override
    public void line(double x1, double y1, double x2, double y2) {
        gc.strokeLine(x1, y1, x2, y2);
    }

    @Override
    public void arrow(double x1, double y1, double x2, double y2) {
        Arrows.draw(gc, x1, y1, x2, y2, Math.max(6, em * 0.5));
    }

    @Override
    public void text(String text, double x, double y, double size, boolean bold, Align align) {
        gc.setFont(Font.font(Font.getDefault().getFamily(), bold ? FontWeight.BOLD : FontWeight.NORMAL, em * size));
        gc.setTextAlign(switch (align) {
            case LEFT -> TextAlignment.LEFT;
            case CENTER -> TextAlignment.CENTER;
            case RIGHT -> TextAlignment.RIGHT;
        });
        gc.fillText(text, x, y);
    }
}
