package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.Theme;

/**
 * A theme's colours as the timeline's painter uses them: opaque ARGB for each ink, and the fades,
 * shades and see-through forms it draws with, all computed from the {@link Theme} with no toolkit,
 * so the window and the exported pictures mix the very same colours.
 */
public final class PaintColours {

    private final Theme theme;
    private final int[] inks = new int[Ink.values().length];
    private final int background;
    private final int band;
    private final int grid;

    public PaintColours(Theme theme) {
        this.theme = theme;
        for (Ink ink : Ink.values()) {
            inks[ink.ordinal()] = opaque(theme.hex(ink));
        }
        background = opaque(theme.background());
        band = opaque(theme.laneBand());
        grid = opaque(theme.grid());
    }

    public Theme theme() {
        return theme;
    }

    private static int opaque(String hex) {
        return 0xff000000 | Theme.rgb(hex);
    }

    public int of(Ink ink) {
        return inks[ink.ordinal()];
    }

    public int of(ActorState state) {
        return of(state.ink());
    }

    public int background() {
        return background;
    }

    /** Every other lane's band. */
    public int band() {
        return band;
    }

    public int grid() {
        return grid;
    }

    /** {@code argb} faded {@code amount} (0 to 1) of the way towards the background. */
    public int faded(int argb, double amount) {
        return mix(argb, background, amount);
    }

    public int faded(Ink ink, double amount) {
        return faded(of(ink), amount);
    }

    /** {@code argb} with its brightness times {@code brightness} and its opacity {@code opacity}. */
    public static int derived(int argb, double brightness, double opacity) {
        int r = (int) Math.round(Math.min(255, ((argb >> 16) & 0xff) * brightness));
        int g = (int) Math.round(Math.min(255, ((argb >> 8) & 0xff) * brightness));
        int b = (int) Math.round(Math.min(255, (argb & 0xff) * brightness));
        int a = (int) Math.round(((argb >>> 24) & 0xff) * opacity);
        return a << 24 | r << 16 | g << 8 | b;
    }

    /** A shade darker, as marks in a state's colour are drawn to stand out on it. */
    public static int darker(int argb) {
        return derived(argb, 0.7, 1);
    }

    /** Black or white, whichever reads better on {@code argb}. */
    public static int textOn(int argb) {
        double luminance = (0.2126 * ((argb >> 16) & 0xff) + 0.7152 * ((argb >> 8) & 0xff)
                + 0.0722 * (argb & 0xff)) / 255;
        return luminance > 0.55 ? 0xff1b1f24 : 0xffffffff;
    }

    /** {@code a} moved {@code amount} of the way towards {@code b}, channel by channel. */
    public static int mix(int a, int b, double amount) {
        int alpha = channel(a >>> 24, b >>> 24, amount);
        return alpha << 24 | channel((a >> 16) & 0xff, (b >> 16) & 0xff, amount) << 16
                | channel((a >> 8) & 0xff, (b >> 8) & 0xff, amount) << 8 | channel(a & 0xff, b & 0xff, amount);
    }

    private static int channel(int from, int to, double amount) {
        return (int) Math.round(from + (to - from) * amount);
    }

    /** {@code argb} premultiplied by its opacity, as pixel buffers hold it. */
    public static int premultiplied(int argb) {
        int a = argb >>> 24;
        if (a == 255) {
            return argb;
        }
        return a << 24 | ((argb >> 16) & 0xff) * a / 255 << 16 | ((argb >> 8) & 0xff) * a / 255 << 8
                | (argb & 0xff) * a / 255;
    }
}
