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

    private static final int SPACING = 4;
    private static final int VIOLATION = EventKind.VIOLATION.ordinal();

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

    private static final Compiled DOT_SPRITE = Compiled.of(DOT);
    private static final Compiled RING_SPRITE = Compiled.of(RING);
    private static final Compiled TICK_SPRITE = Compiled.of(TICK);
    private static final Compiled CROSS_SPRITE = Compiled.of(CROSS);
    private static final Compiled CIRCLE_SPRITE = Compiled.of(CIRCLE);

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
            // Marks are a few pixels wide: one every SPACING pixels per kind shows all there is to
            // see; violations are never thinned beyond a shared pixel.
            if (x - lastX[kind] < (kind == VIOLATION ? 1 : SPACING)) {
                continue;
            }
            lastX[kind] = x;
            switch (Lane.KINDS[kind]) {
                case TOKEN -> sprite(DOT_SPRITE, x, mid, token, white, width, height, top, bottom);
                case WRITE_ACCEPTED -> sprite(TICK_SPRITE, x, mid, safe, white, width, height, top, bottom);
                case WRITE_REJECTED -> sprite(RING_SPRITE, x, mid, text, white, width, height, top, bottom);
                case VIOLATION -> sprite(CROSS_SPRITE, x, mid, race, white, width, height, top, bottom);
                case RETRY -> sprite(CIRCLE_SPRITE, x, mid, retry, white, width, height, top, bottom);
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
