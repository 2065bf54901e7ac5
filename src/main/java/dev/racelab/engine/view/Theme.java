package dev.racelab.engine.view;

import dev.racelab.engine.Ink;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * RaceLab's colours, defined once: every ink as a hex colour, the grounds the inks are drawn on,
 * and the tints the window's controls use. The window's canvases, its CSS (the scene's first
 * stylesheet is {@link #css()}: the {@code -rl-*} looked-up colours that racelab.css uses, never a
 * literal colour) and the exports all take their colours from here.
 *
 * <p>The inks of states and marks come from the Okabe–Ito palette, which stays distinguishable
 * with the common forms of colour blindness; the states that matter most also differ in pattern
 * (delays hatched, halts barred), so colour is never the only cue. Two themes, light and dark;
 * each has a high-contrast form for a projector ({@link #highContrast()}).
 */
public final class Theme {

    public static final Theme LIGHT = new Theme("light", false, "#ffffff", "#f4f5f7", "#d9dce1", inks(
            "#1b1f24", "#6b7280", "#eef0f3", "#9aa1ab",
            "#56B4E9", "#E69F00", "#0072B2", "#CC79A7", "#F0E442", "#5b616b",
            "#a9c8dc", "#E69F00", "#009E73", "#c9ced6", "#D55E00",
            "#007d5a", "#D55E00", "#0072B2", "#CC79A7"), tints(
            "#eef0f3", "#5b6470", "#f4f5f7", "#c9ced6", "#0072B2", "#c2410c", "#4b5563",
            "#d7e9f7", "#cfe6f5", "#fff3d6", "#E69F00", "#dcf2ea", "#fbe9df", "#f6d9c8", "#fbe3d6", "#a84300",
            "#fbf6b9", "#3b3f45", "#e3eff8", "#1b1f24", "#007d5a"));

    public static final Theme DARK = new Theme("dark", true, "#15181c", "#1d2126", "#30363d", inks(
            "#e6e9ed", "#9aa3ad", "#262b31", "#5a626c",
            "#56B4E9", "#E69F00", "#1f66a8", "#CC79A7", "#F0E442", "#9aa1ab",
            "#3e5a6b", "#E69F00", "#2bb58a", "#3a4048", "#ff7a3d",
            "#35c497", "#ff7a3d", "#56B4E9", "#e38fc0"), tints(
            "#2a2f36", "#a4acb6", "#1d2126", "#3a414a", "#56B4E9", "#c2410c", "#6b7280",
            "#23415a", "#24435a", "#4a3a12", "#E69F00", "#173d31", "#4a2a1c", "#5a2e1c", "#4a2a1c", "#ffb27f",
            "#4a4615", "#cfd4da", "#1f3447", "#e6e9ed", "#007d5a"));

    private final String name;
    private final boolean dark;
    private final String background;
    private final String laneBand;
    private final String grid;
    private final Map<Ink, String> inks;
    private final Map<String, String> tints;

    private Theme(String name, boolean dark, String background, String laneBand, String grid, Map<Ink, String> inks,
                  Map<String, String> tints) {
        this.name = name;
        this.dark = dark;
        this.background = background;
        this.laneBand = laneBand;
        this.grid = grid;
        this.inks = new EnumMap<>(inks);
        this.tints = new LinkedHashMap<>(tints);
        for (Ink ink : Ink.values()) {
            if (!this.inks.containsKey(ink)) {
                throw new IllegalStateException(name + " has no colour for " + ink);
            }
        }
    }

    private static Map<Ink, String> inks(String... hex) {
        Ink[] order = {Ink.TEXT, Ink.MUTED, Ink.SURFACE, Ink.OUTLINE,
            Ink.RUNNING, Ink.WAITING, Ink.HOLDING, Ink.CRITICAL, Ink.DELAYED, Ink.AT_GATE,
            Ink.THINKING, Ink.HUNGRY, Ink.EATING, Ink.DONE, Ink.FAILED,
            Ink.SAFE, Ink.RACE, Ink.TOKEN, Ink.HIGHLIGHT};
        Map<Ink, String> map = new EnumMap<>(Ink.class);
        for (int i = 0; i < order.length; i++) {
            map.put(order[i], hex[i]);
        }
        return map;
    }

    /** The looked-up colours of the window's CSS, in racelab.css's words. */
    private static Map<String, String> tints(String... hex) {
        String[] names = {"base", "muted", "surface", "outline", "accent", "race", "error",
            "selection", "accent-tint", "warn-tint", "warn", "safe-tint", "race-tint", "race-tint-strong",
            "fault-tint", "fault-text", "halted-tint", "strong-outline", "recording", "text", "safe"};
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            map.put(names[i], hex[i]);
        }
        return map;
    }

    /** {@code light} or {@code dark}, as settings store it; anything else is the light theme. */
    public static Theme named(String name) {
        return "dark".equals(name) ? DARK : LIGHT;
    }

    /** {@code light} or {@code dark}. */
    public String name() {
        return name;
    }

    public boolean dark() {
        return dark;
    }

    /**
     * The same theme with the most contrast a projector needs: text and outlines at full strength,
     * muted words no lighter than the outline, the grounds a step further from the inks.
     */
    public Theme highContrast() {
        Map<Ink, String> strong = new EnumMap<>(inks);
        strong.put(Ink.TEXT, dark ? "#ffffff" : "#000000");
        strong.put(Ink.MUTED, dark ? "#c9ced6" : "#3b3f45");
        strong.put(Ink.OUTLINE, dark ? "#9aa1ab" : "#5b616b");
        Map<String, String> tinted = new LinkedHashMap<>(tints);
        tinted.put("text", strong.get(Ink.TEXT));
        tinted.put("muted", strong.get(Ink.MUTED));
        tinted.put("outline", strong.get(Ink.OUTLINE));
        tinted.put("strong-outline", strong.get(Ink.TEXT));
        return new Theme(name, dark, dark ? "#000000" : "#ffffff", dark ? "#15181c" : "#eceef1",
                dark ? "#3a414a" : "#c4c9d0", strong, tinted);
    }

    /** The colour of {@code ink}, as {@code #rrggbb}. */
    public String hex(Ink ink) {
        return inks.get(ink);
    }

    /** What the timeline and the pictures are drawn on. */
    public String background() {
        return background;
    }

    /** Every other lane's band, and the panels' ground. */
    public String laneBand() {
        return laneBand;
    }

    /** The time grid's lines. */
    public String grid() {
        return grid;
    }

    /**
     * The window's colours as CSS: a {@code .root} rule defining every {@code -rl-*} looked-up
     * colour racelab.css uses, and Modena's own base, accent and text colours to match.
     */
    public String css() {
        StringBuilder css = new StringBuilder(".root {\n");
        tints.forEach((role, hex) -> css.append("    -rl-").append(role).append(": ").append(hex).append(";\n"));
        css.append("    -rl-background: ").append(background).append(";\n");
        css.append("    -rl-lane-band: ").append(laneBand).append(";\n");
        css.append("    -rl-halted: ").append(hex(Ink.DELAYED)).append(";\n");
        css.append("    -rl-invalid: ").append(hex(Ink.FAILED)).append(";\n");
        css.append("    -rl-fault: ").append(hex(Ink.FAILED)).append(";\n");
        css.append("    -rl-highlight: ").append(hex(Ink.HIGHLIGHT)).append(";\n");
        css.append("    -fx-base: -rl-base;\n");
        css.append("    -fx-background: -rl-background;\n");
        css.append("    -fx-control-inner-background: -rl-background;\n");
        css.append("    -fx-accent: -rl-accent;\n");
        css.append("    -fx-focus-color: -rl-accent;\n");
        css.append("    -fx-faint-focus-color: ").append(tints.get("accent")).append("22;\n");
        css.append("    -fx-text-base-color: -rl-text;\n");
        css.append("    -fx-text-background-color: -rl-text;\n");
        css.append("    -fx-selection-bar-non-focused: -rl-selection;\n");
        css.append("}\n");
        return css.toString();
    }

    /** {@code #rrggbb} as 0xRRGGBB. */
    public static int rgb(String hex) {
        return Integer.parseInt(hex.substring(1, 7), 16);
    }
}
