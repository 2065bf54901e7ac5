package dev.racelab.ui.timeline;

import dev.racelab.engine.EventKind;
import dev.racelab.engine.view.Ink;
import dev.racelab.ui.Palette;

/**
 * Paints the timeline's marks (tokens, accepted and rejected writes, reads, violations, errors)
 * straight into the lane pixel buffer as tiny bitmaps: a million events cost array writes, not
 * canvas calls. At most one mark of each kind per pixel column, except violations, which are never
 * thinned away.
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

    private final int[] pixels;
    private final int token = Palette.argb(Palette.of(Ink.TOKEN));
    private final int safe = Palette.argb(Palette.of(Ink.SAFE));
    private final int text = Palette.argb(Palette.of(Ink.TEXT));
    private final int race = Palette.argb(Palette.of(Ink.RACE));
    private final int retry = Palette.argb(Palette.of(Ink.WAITING).darker());
    private final int white = Palette.argb(Palette.BACKGROUND);
    private final int[] lastX = new int[EventKind.values().length];

    MarkerSprites(int[] pixels) {
        this.pixels = pixels;
    }

    /** Paints {@code lane}'s marks between rows {@code top} and {@code bottom}. */
    void paint(Lane lane, int width, int height, int top, int bottom, double viewStart, double nanosPerPixel) {
        int n = lane.markTime.size();
        if (n == 0 || bottom - top < 4) {
            return;
        }
        java.util.Arrays.fill(lastX, Integer.MIN_VALUE);
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
            if (x == lastX[kind]) {
                continue;
            }
            lastX[kind] = x;
            switch (Lane.KINDS[kind]) {
                case TOKEN -> sprite(DOT, x, mid, token, white, width, height, top, bottom);
                case WRITE_ACCEPTED -> sprite(TICK, x, mid, safe, white, width, height, top, bottom);
                case WRITE_REJECTED -> sprite(RING, x, mid, text, white, width, height, top, bottom);
                case VIOLATION -> sprite(CROSS, x, mid, race, white, width, height, top, bottom);
                case RETRY -> sprite(CIRCLE, x, mid, retry, white, width, height, top, bottom);
                case READ, WRITE -> column(x, top + (bottom - top) * 2 / 3, bottom, text, width, height);
                case ERROR -> {
                    for (int dx = -1; dx <= 1; dx++) {
                        column(x + dx, top + 1, bottom, race, width, height);
                    }
                }
                default -> {
                }
            }
        }
    }

    private void sprite(String[] mask, int cx, int cy, int ink, int halo, int width, int height, int top, int bottom) {
        int x0 = cx - mask[0].length() / 2;
        int y0 = cy - mask.length / 2;
        for (int r = 0; r < mask.length; r++) {
            int y = y0 + r;
            if (y < Math.max(0, top) || y >= Math.min(height, bottom)) {
                continue;
            }
            String line = mask[r];
            int offset = y * width;
            for (int c = 0; c < line.length(); c++) {
                int x = x0 + c;
                char ch = line.charAt(c);
                if (x < 0 || x >= width || ch == '.') {
                    continue;
                }
                pixels[offset + x] = ch == '#' ? ink : halo;
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
