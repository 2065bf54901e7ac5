package dev.racelab.ui;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import javafx.scene.paint.Color;

import java.util.EnumMap;
import java.util.Map;

/**
 * The colours of every ink, from the Okabe–Ito palette, which stays distinguishable with the
 * common forms of colour blindness. States that matter most also differ in pattern (the timeline
 * hatches delays and dots halts), so colour is never the only cue. The CSS theme uses the same
 * values (see racelab.css); this class serves the canvases.
 */
public final class Palette {

    public static final Color BACKGROUND = Color.web("#ffffff");
    public static final Color LANE_BAND = Color.web("#f4f5f7");
    public static final Color GRID = Color.web("#d9dce1");

    private static final Map<Ink, Color> INKS = new EnumMap<>(Ink.class);

    static {
        INKS.put(Ink.TEXT, Color.web("#1b1f24"));
        INKS.put(Ink.MUTED, Color.web("#6b7280"));
        INKS.put(Ink.SURFACE, Color.web("#eef0f3"));
        INKS.put(Ink.OUTLINE, Color.web("#9aa1ab"));
        INKS.put(Ink.RUNNING, Color.web("#56B4E9"));
        INKS.put(Ink.WAITING, Color.web("#E69F00"));
        INKS.put(Ink.HOLDING, Color.web("#0072B2"));
        INKS.put(Ink.CRITICAL, Color.web("#CC79A7"));
        INKS.put(Ink.DELAYED, Color.web("#F0E442"));
        INKS.put(Ink.AT_GATE, Color.web("#5b616b"));
        INKS.put(Ink.THINKING, Color.web("#a9c8dc"));
        INKS.put(Ink.HUNGRY, Color.web("#E69F00"));
        INKS.put(Ink.EATING, Color.web("#009E73"));
        INKS.put(Ink.DONE, Color.web("#c9ced6"));
        INKS.put(Ink.FAILED, Color.web("#D55E00"));
        INKS.put(Ink.SAFE, Color.web("#007d5a"));
        INKS.put(Ink.RACE, Color.web("#D55E00"));
        INKS.put(Ink.TOKEN, Color.web("#0072B2"));
        INKS.put(Ink.HIGHLIGHT, Color.web("#CC79A7"));
    }

    private Palette() {
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
        return luminance > 0.55 ? of(Ink.TEXT) : Color.WHITE;
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
