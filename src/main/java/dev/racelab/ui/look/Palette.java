package dev.racelab.ui.look;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.Theme;
import javafx.scene.paint.Color;

import java.util.EnumMap;
import java.util.Map;

/**
 * The colours of every ink for the window's canvases, as JavaFX colours, from the {@link Theme}
 * (which defines them once, for the CSS and the exports too).
 */
public final class Palette {

    private static final Map<Ink, Color> INKS = new EnumMap<>(Ink.class);
    private static volatile Theme theme;
    private static Color background;
    private static Color laneBand;
    private static Color grid;

    static {
        use(Theme.LIGHT);
    }

    private Palette() {
    }

    /** Makes {@code next} the colours of every canvas from now on; the FX thread's (the window redraws after). */
    public static synchronized void use(Theme next) {
        theme = next;
        for (Ink ink : Ink.values()) {
            INKS.put(ink, Color.web(next.hex(ink)));
        }
        background = Color.web(next.background());
        laneBand = Color.web(next.laneBand());
        grid = Color.web(next.grid());
    }

    /** The theme the canvases are drawn in now. */
    public static Theme theme() {
        return theme;
    }

    /** What the timeline and the pictures are drawn on. */
    public static Color background() {
        return background;
    }

    /** Every other lane's band. */
    public static Color laneBand() {
        return laneBand;
    }

    /** The time grid's lines. */
    public static Color grid() {
        return grid;
    }

    /** {@code color} faded {@code amount} (0 to 1) of the way towards the ground it is drawn on. */
    public static Color faded(Color color, double amount) {
        return color.interpolate(background, amount);
    }

    public static Color of(Ink ink) {
        return INKS.get(ink);
    }

    public static Color of(ActorState state) {
        return of(Ink.of(state));
    }

    /** Black or white, whichever reads better on {@code background}. */
    public static Color textOn(Color background) {
        double luminance = 0.2126 * background.getRed() + 0.7152 * background.getGreen()
                + 0.0722 * background.getBlue();
        return luminance > 0.55 ? Color.web("#1b1f24") : Color.WHITE;
    }

    /** A colour as premultiplied ARGB, for pixel buffers. */
    public static int argb(Color color) {
        int a = (int) Math.round(color.getOpacity() * 255);
        int r = (int) Math.round(color.getRed() * color.getOpacity() * 255);
        int g = (int) Math.round(color.getGreen() * color.getOpacity() * 255);
        int b = (int) Math.round(color.getBlue() * color.getOpacity() * 255);
        return a << 24 | r << 16 | g << 8 | b;
    }
}
