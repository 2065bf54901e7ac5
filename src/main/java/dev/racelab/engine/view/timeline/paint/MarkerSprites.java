package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.view.timeline.Growable;
import dev.racelab.engine.view.timeline.Lane;

import dev.racelab.engine.EventKind;
import dev.racelab.engine.Glyph;
import dev.racelab.engine.Ink;

import java.util.Arrays;

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
    /** Up to this many marks a pixel in view, each is looked at in turn; past it, each kind's are found by jumping. */
    private static final int MARKS_ONE_BY_ONE = 8;

    /** A sprite compiled from its picture: offsets from its centre, and whether each is ink or halo. */
    private record Compiled(int[] dx, int[] dy, boolean[] ink, int reach) {
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
            int reach = 0;
            for (int k = 0; k < count; k++) {
                reach = Math.max(reach, Math.max(Math.abs(dx[k]), Math.abs(dy[k])));
            }
            return new Compiled(dx, dy, ink, reach);
        }
    }

    /** Per glyph ordinal, its sprite (null for glyphs not drawn as one). */
    private static final Compiled[] SPRITES = new Compiled[Glyph.values().length];

    static {
        SPRITES[Glyph.DOT.ordinal()] = Compiled.of(DOT);
        SPRITES[Glyph.RING.ordinal()] = Compiled.of(RING);
        SPRITES[Glyph.TICK.ordinal()] = Compiled.of(TICK);
        SPRITES[Glyph.CROSS.ordinal()] = Compiled.of(CROSS);
        SPRITES[Glyph.CIRCLE.ordinal()] = Compiled.of(CIRCLE);
    }

    /** Per kind ordinal: how it is drawn, and in which colour (a shade darker, to stand out on any state). */
    private static final Glyph[] GLYPHS = new Glyph[EventKind.values().length];
    private final int[] inks;
    private final int[] pixels;
    private final int white;
    /** The marks chosen to be drawn on the lane being painted (their indexes), and how many. */
    private int[] chosen = new int[256];
    /** Looking at each mark in turn: per kind, the pixel of the last one drawn. */
    private final int[] lastX = new int[EventKind.values().length];
    /** The same, in the order they happened. */
    private int[] ordered = new int[256];
    /** Per glyph ordinal, its pixels' offsets from its centre in a buffer {@link #offsetWidth} wide. */
    private final int[][] offsets = new int[Glyph.values().length][];
    private int offsetWidth = -1;
    private int drawn;
    /** Where each kind's chosen marks lie in {@link #chosen}: one run per kind. */
    private final int[] runStart = new int[EventKind.values().length];
    private final int[] runEnd = new int[EventKind.values().length];
    private int runs;

    static {
        for (EventKind kind : EventKind.values()) {
            GLYPHS[kind.ordinal()] = kind.glyph() == null ? Glyph.NONE : kind.glyph();
        }
    }

    MarkerSprites(int[] pixels, LanePixels.Colours colours) {
        this.pixels = pixels;
        this.inks = colours.markArgb;
        this.white = colours.white;
    }

    /** Per kind ordinal, its mark's colour: marks in a state's colour (a retry is a wait) a shade darker, to stand out on it. */
    static int[] inks(PaintColours colours) {
        int[] inks = new int[EventKind.values().length];
        for (EventKind kind : EventKind.values()) {
            boolean stateColour = kind.ink().ordinal() >= Ink.RUNNING.ordinal() && kind.ink().ordinal() <= Ink.FAILED.ordinal();
            inks[kind.ordinal()] = stateColour ? PaintColours.darker(colours.of(kind.ink())) : colours.of(kind.ink());
        }
        return inks;
    }

    /**
     * Paints {@code lane}'s marks between rows {@code top} and {@code bottom}. Marks are a few
     * pixels wide: one every {@link #SPACING} pixels per kind shows all there is to see, crosses
     * (violations) are never thinned beyond a shared pixel. Of each kind, the marks drawn are found
     * by jumping from one to the first far enough after it, so the cost is what is drawn, not how
     * many marks lie in view; they are drawn in the order they happened, later over earlier.
     */
    void paint(Lane lane, int width, int height, int top, int bottom, double viewStart, double nanosPerPixel) {
        if (lane.markTime.size() == 0 || bottom - top < 4) {
            return;
        }
        int count = choose(lane, width, viewStart, nanosPerPixel);
        int mid = top + (int) ((bottom - top) * 0.5);
        for (int i = 0; i < count; i++) {
            int m = ordered[i];
            int x = (int) ((lane.markTime.get(m) - viewStart) * (1.0 / nanosPerPixel));
            int kind = lane.markKind.get(m);
            int ink = inks[kind];
            switch (GLYPHS[kind]) {
                case STROKE -> column(x, top + (bottom - top) * 2 / 3, bottom, ink, width, height);
                case BAR -> {
                    for (int dx = -1; dx <= 1; dx++) {
                        column(x + dx, top + 1, bottom, ink, width, height);
                    }
                }
                default -> sprite(GLYPHS[kind].ordinal(), x, mid, ink, white, width, height, top, bottom);
            }
        }
    }

    /** The marks of {@code lane} drawn in a view {@code width} pixels wide (their indexes), in the order drawn. */
    int[] marksDrawn(Lane lane, int width, double viewStart, double nanosPerPixel) {
        int count = choose(lane, width, viewStart, nanosPerPixel);
        return Arrays.copyOf(ordered, count);
    }

    /** Chooses the marks to draw into {@link #ordered}, in the order they happened; returns how many. */
    private int choose(Lane lane, int width, double viewStart, double nanosPerPixel) {
        double end = viewStart + width * nanosPerPixel;
        int first = Math.max(0, lane.markTime.floor((long) viewStart));
        if (lane.markTime.floor((long) Math.ceil(end)) - first <= MARKS_ONE_BY_ONE * width) {
            return chooseOneByOne(lane, first, viewStart, end, nanosPerPixel);
        }
        drawn = 0;
        runs = 0;
        for (int kind = 0; kind < GLYPHS.length; kind++) {
            if (lane.marksOfKind(kind) != null && GLYPHS[kind] != Glyph.NONE) {
                int before = drawn;
                choose(lane, kind, GLYPHS[kind] == Glyph.CROSS ? 1 : SPACING, viewStart, end, nanosPerPixel);
                if (drawn > before) {
                    runStart[runs] = before;
                    runEnd[runs++] = drawn;
                }
            }
        }
        if (ordered.length < drawn) {
            ordered = new int[chosen.length];
        }
        // Each kind's marks are in order: take the earliest of their heads, one at a time.
        for (int i = 0; i < drawn; i++) {
            int run = -1;
            for (int r = 0; r < runs; r++) {
                if (runStart[r] < runEnd[r] && (run < 0 || chosen[runStart[r]] < chosen[runStart[run]])) {
                    run = r;
                }
            }
            ordered[i] = chosen[runStart[run]++];
        }
        return drawn;
    }

    /** Looks at every mark in view in turn: each drawn if far enough from the last of its kind drawn. */
    private int chooseOneByOne(Lane lane, int first, double viewStart, double end, double nanosPerPixel) {
        Arrays.fill(lastX, Integer.MIN_VALUE / 2);
        long[] times = lane.markTime.raw();
        int n = lane.markTime.size();
        int count = 0;
        for (int m = first; m < n; m++) {
            long t = times[m];
            if (t > end) {
                break;
            }
            if (t < viewStart) {
                continue;
            }
            int kind = lane.markKind.get(m);
            Glyph glyph = GLYPHS[kind];
            int x = (int) ((t - viewStart) * (1.0 / nanosPerPixel));
            if (glyph == Glyph.NONE || x - lastX[kind] < (glyph == Glyph.CROSS ? 1 : SPACING)) {
                continue;
            }
            lastX[kind] = x;
            if (count == ordered.length) {
                ordered = Arrays.copyOf(ordered, count * 2);
            }
            ordered[count++] = m;
        }
        return count;
    }

    /** Adds to {@link #chosen} the marks of one kind drawn: the first in view, then each first at least {@code spacing} pixels on. */
    private void choose(Lane lane, int kind, int spacing, double viewStart, double end, double nanosPerPixel) {
        Growable.Ints ofKind = lane.marksOfKind(kind);
        Growable.Longs times = lane.markTimesOfKind(kind);
        int j = firstAtPixel(times, 0, viewStart, nanosPerPixel, 0);
        while (j < times.size()) {
            long t = times.get(j);
            if (t > end) {
                return;
            }
            if (drawn == chosen.length) {
                chosen = Arrays.copyOf(chosen, drawn * 2);
            }
            chosen[drawn++] = ofKind.get(j);
            int x = (int) ((t - viewStart) * (1.0 / nanosPerPixel));
            j = firstAtPixel(times, j + 1, viewStart, nanosPerPixel, x + spacing);
        }
    }

    /**
     * The first of {@code times} from {@code from} on that lies at or after time {@code viewStart}
     * and pixel {@code x}: found by comparing times with the pixel's edge, then made exact by
     * {@link #reaches} where rounding decides, within a nanosecond of it.
     */
    private static int firstAtPixel(Growable.Longs times, int from, double viewStart, double nanosPerPixel, int x) {
        double edge = Math.max(viewStart, viewStart + x * nanosPerPixel);
        int i = times.firstReaching(from, edge, false);
        while (i > from && times.get(i - 1) >= edge - 1 && reaches(times.get(i - 1), viewStart, nanosPerPixel, x)) {
            i--;
        }
        while (i < times.size() && times.get(i) <= edge + 1 && !reaches(times.get(i), viewStart, nanosPerPixel, x)) {
            i++;
        }
        return i;
    }

    /** Whether a mark at {@code t} is in view and drawn at pixel {@code x} or later. */
    private static boolean reaches(long t, double viewStart, double nanosPerPixel, int x) {
        return t >= viewStart && (int) ((t - viewStart) * (1.0 / nanosPerPixel)) >= x;
    }

    private void sprite(int glyph, int cx, int cy, int ink, int halo, int width, int height, int top, int bottom) {
        Compiled sprite = SPRITES[glyph];
        int minY = Math.max(0, top);
        int maxY = Math.min(height, bottom);
        int reach = sprite.reach();
        if (cx - reach >= 0 && cx + reach < width && cy - reach >= minY && cy + reach < maxY) {
            // Whole on the lane: no pixel needs its own bounds check.
            int[] offsets = offsets(glyph, width);
            boolean[] isInk = sprite.ink();
            int centre = cy * width + cx;
            for (int i = 0; i < offsets.length; i++) {
                pixels[centre + offsets[i]] = isInk[i] ? ink : halo;
            }
            return;
        }
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

    /** Where each of {@code sprite}'s pixels lies from its centre in a buffer {@code width} wide; kept per glyph. */
    private int[] offsets(int glyph, int width) {
        if (offsetWidth != width) {
            Arrays.fill(offsets, null);
            offsetWidth = width;
        }
        Compiled sprite = SPRITES[glyph];
        if (offsets[glyph] == null) {
            int[] made = new int[sprite.dx().length];
            for (int i = 0; i < made.length; i++) {
                made[i] = sprite.dy()[i] * width + sprite.dx()[i];
            }
            offsets[glyph] = made;
        }
        return offsets[glyph];
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
