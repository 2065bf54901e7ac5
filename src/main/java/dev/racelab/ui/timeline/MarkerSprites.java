package dev.racelab.ui.timeline;

import dev.racelab.engine.view.timeline.Lane;

import dev.racelab.engine.EventKind;
import dev.racelab.engine.Glyph;
import dev.racelab.engine.Ink;
import dev.racelab.ui.Palette;

import java.util.EnumMap;
import java.util.Map;

/**
 * Paints the timeline's marks straight into the lane pixel buffer as tiny bitmaps: a million
 * events cost array writes, not canvas calls. Each kind of mark is drawn as the vocabulary says
 * ({@link EventKind#glyph()} in {@link EventKind#ink()}), one bitmap per {@link Glyph}, so a new
 * kind of mark needs nothing here. At most one mark of each kind per few pixel columns, except
 * crosses (violations), which are never thinned away.
 */
final class MarkerSprites {

    private static final String[] DOT = {
        ".###.",
        "#####",
        "#####",
        "#####",
        ".###."};
    private static final String[] RING = {
        ".ooooo.",
        "o#####o",
        "o#...#o",
        "o#..##o",
        "o#.#.#o",
        "o##..#o",
        "o#####o",
        ".ooooo."};
    private static final String[] TICK = {
        "......#",
        ".....##",
        "#...##.",
        "##.##..",
        ".###...",
        "..#...."};
    private static final String[] CROSS = {
        "oo.....oo",
        "o##...##o",
        ".o##.##o.",
        "..o###o..",
        "...o#o...",
        "..o###o..",
        ".o##.##o.",
        "o##...##o",
        "oo.....oo"};
    private static final String[] CIRCLE = {
        ".###.",
        "#...#",
        "#...#",
        "#...#",
        ".###."};

    private static final int SPACING = 4;

    /** A sprite compiled from its picture: offsets from its centre, and whether each is ink or halo. */
    private record Compiled(int[] dx, int[] dy, boolean[] ink) {
        static Compiled of(String[] mask) {
            int count = 0;
            for (String line : mask) {
                count += line.replace(".", "").length();
            }
            int[] dx = new int[count];
            int[] dy = new int[count];
            boolean[] ink = new boolean[count];
            int i = 0;
            for (int r = 0; r < mask.length; r++) {
                for (int c = 0; c < mask[r].length(); c++) {
                    char ch = mask[r].charAt(c);
                    if (ch != '.') {
                        dx[i] = c - mask[0].length() / 2;
                        dy[i] = r - mask.length / 2;
                        ink[i++] = ch == '#';
                    }
                }
            }
            return new Compiled(dx, dy, ink);
        }
    }

    private static final Map<Glyph, Compiled> SPRITES = new EnumMap<>(Glyph.class);

    static {
        SPRITES.put(Glyph.DOT, Compiled.of(DOT));
        SPRITES.put(Glyph.RING, Compiled.of(RING));
        SPRITES.put(Glyph.TICK, Compiled.of(TICK));
        SPRITES.put(Glyph.CROSS, Compiled.of(CROSS));
        SPRITES.put(Glyph.CIRCLE, Compiled.of(CIRCLE));
    }

    /** Per kind ordinal: how it is drawn, and in which colour (a shade darker, to stand out on any state). */
    private static final Glyph[] GLYPHS = new Glyph[EventKind.values().length];
    private final int[] inks = new int[EventKind.values().length];
    private final int[] pixels;
    private final int white = Palette.argb(Palette.background());
    private final int[] lastX = new int[EventKind.values().length];

    static {
        for (EventKind kind : EventKind.values()) {
            GLYPHS[kind.ordinal()] = kind.glyph() == null ? Glyph.NONE : kind.glyph();
        }
    }

    MarkerSprites(int[] pixels) {
        this.pixels = pixels;
        for (EventKind kind : EventKind.values()) {
            // Marks drawn in a state's colour (a retry is a wait) are drawn darker, to stand out on it.
            boolean stateColour = kind.ink().ordinal() >= Ink.RUNNING.ordinal() && kind.ink().ordinal() <= Ink.FAILED.ordinal();
            inks[kind.ordinal()] = Palette.argb(stateColour ? Palette.of(kind.ink()).darker() : Palette.of(kind.ink()));
        }
    }

    /** Paints {@code lane}'s marks between rows {@code top} and {@code bottom}. */
    void paint(Lane lane, int width, int height, int top, int bottom, double viewStart, double nanosPerPixel) {
        int n = lane.markTime.size();
        if (n == 0 || bottom - top < 4) {
            return;
        }
        java.util.Arrays.fill(lastX, Integer.MIN_VALUE / 2);
        double end = viewStart + width * nanosPerPixel;
        int mid = top + (int) ((bottom - top) * 0.5);
        for (int m = Math.max(0, lane.markTime.floor((long) viewStart)); m < n; m++) {
            long t = lane.markTime.get(m);
            if (t > end) {
                break;
            }
            if (t < viewStart) {
                continue;
            }
            int x = (int) ((t - viewStart) / nanosPerPixel);
            int kind = lane.markKind.get(m);
            Glyph glyph = GLYPHS[kind];
            // Marks are a few pixels wide: one every SPACING pixels per kind shows all there is to
            // see; crosses (violations) are never thinned beyond a shared pixel.
            if (glyph == Glyph.NONE || x - lastX[kind] < (glyph == Glyph.CROSS ? 1 : SPACING)) {
                continue;
            }
            lastX[kind] = x;
            int ink = inks[kind];
            switch (glyph) {
                case STROKE -> column(x, top + (bottom - top) * 2 / 3, bottom, ink, width, height);
                case BAR -> {
                    for (int dx = -1; dx <= 1; dx++) {
                        column(x + dx, top + 1, bottom, ink, width, height);
                    }
                }
                default -> sprite(SPRITES.get(glyph), x, mid, ink, white, width, height, top, bottom);
            }
        }
    }

    private void sprite(Compiled sprite, int cx, int cy, int ink, int halo, int width, int height, int top,
                        int bottom) {
        int minY = Math.max(0, top);
        int maxY = Math.min(height, bottom);
        int[] dx = sprite.dx();
        int[] dy = sprite.dy();
        boolean[] isInk = sprite.ink();
        for (int i = 0; i < dx.length; i++) {
            int x = cx + dx[i];
            int y = cy + dy[i];
            if (x >= 0 && x < width && y >= minY && y < maxY) {
                pixels[y * width + x] = isInk[i] ? ink : halo;
            }
        }
    }

    private void column(int x, int from, int to, int ink, int width, int height) {
        if (x < 0 || x >= width) {
            return;
        }
        for (int y = Math.max(0, from); y < Math.min(height, to); y++) {
            pixels[y * width + x] = ink;
        }
    }
}
