package dev.racelab.ui.look;

import javafx.scene.canvas.GraphicsContext;

/** Lines with arrow heads, in the current stroke. */
public final class Arrows {

    private Arrows() {
    }

    public static void draw(GraphicsContext gc, double x1, double y1, double x2, double y2, double head) {
        gc.strokeLine(x1, y1, x2, y2);
        double angle = Math.atan2(y2 - y1, x2 - x1);
        double spread = Math.toRadians(25);
        gc.strokeLine(x2, y2, x2 - head * Math.cos(angle - spread), y2 - head * Math.sin(angle - spread));
        gc.strokeLine(x2, y2, x2 - head * Math.cos(angle + spread), y2 - head * Math.sin(angle + spread));
    }
}
