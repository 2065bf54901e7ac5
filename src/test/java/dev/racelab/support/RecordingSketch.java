package dev.racelab.support;

import dev.racelab.engine.Ink;
import dev.racelab.engine.view.Sketch;

import java.util.ArrayList;
import java.util.List;

/** A sketch that draws nothing and remembers what it was asked to draw, for tests of lab pictures. */
public final class RecordingSketch implements Sketch {

    private final double width;
    private final double height;
    private final List<String> texts = new ArrayList<>();
    private int arrows;
    private int circles;

    public RecordingSketch(double width, double height) {
        this.width = width;
        this.height = height;
    }

    public List<String> texts() {
        return texts;
    }

    public int arrows() {
        return arrows;
    }

    public int circles() {
        return circles;
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
        return 14;
    }

    @Override
    public Sketch fill(Ink ink) {
        return this;
    }

    @Override
    public Sketch stroke(Ink ink, double lineWidth) {
        return this;
    }

    @Override
    public void fillRect(double x, double y, double w, double h) {
    }

    @Override
    public void strokeRect(double x, double y, double w, double h) {
    }

    @Override
    public void fillRoundRect(double x, double y, double w, double h, double radius) {
    }

    @Override
    public void strokeRoundRect(double x, double y, double w, double h, double radius) {
    }

    @Override
    public void fillCircle(double cx, double cy, double r) {
        circles++;
    }

    @Override
    public void strokeCircle(double cx, double cy, double r) {
    }

    @Override
    public void line(double x1, double y1, double x2, double y2) {
    }

    @Override
    public void arrow(double x1, double y1, double x2, double y2) {
        arrows++;
    }

    @Override
    public void text(String text, double x, double y, double size, boolean bold, Align align) {
        texts.add(text);
    }
}
