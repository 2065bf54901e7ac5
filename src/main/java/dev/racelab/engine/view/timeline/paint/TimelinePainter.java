package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.Lane;

/**
 * Draws a timeline as its {@link TimelineLayout} places it, on any {@link TimelineSurface}: the
 * window's canvas every frame, a PNG's image or an SVG document once. One painter, so a picture
 * exported shows what the window shows at the same size, zoom and range.
 *
 * <p>The lanes' colours and marks go into one buffer of pixels ({@link LanePixels}: the most
 * telling state of each pixel column, {@link dev.racelab.engine.view.timeline.StateColumns}),
 * placed as one image; over it the words ({@link LaneWords}), the arrows and the focused violation
 * ({@link TimelineOverlays}), the gutter's names ({@link LaneNames}) and the time axis ({@link
 * TimeAxis}). Cost per drawing grows with the segments in view and the pixels drawn, not with the
 * length of the recording; a frame in which nothing the lanes show has changed (the pointer
 * moved, a lane was selected) keeps the lanes' pixels as they were. One thread at a time.
 */
public final class TimelinePainter {

    private final TimelineLayout layout;
    private PaintColours colours;
    private final LanePixels lanePixels;
    private final LaneWords laneWords;
    private final TimelineOverlays overlays;
    private final LaneNames laneNames;
    private final TimeAxis axis;

    public TimelinePainter(TimelineLayout layout, PaintColours colours) {
        this.layout = layout;
        this.colours = colours;
        lanePixels = new LanePixels(layout, colours);
        laneWords = new LaneWords(layout, colours);
        overlays = new TimelineOverlays(layout, colours);
        laneNames = new LaneNames(layout, colours);
        axis = new TimeAxis(layout, colours);
    }

    /** Draws with another theme's colours from now on. */
    public void colours(PaintColours next) {
        colours = next;
        lanePixels.colours(next);
        laneWords.colours(next);
        overlays.colours(next);
        laneNames.colours(next);
        axis.colours(next);
    }

    public PaintColours colours() {
        return colours;
    }

    /** What the picture marks beyond the run itself: what the user chose, and where the clock is. */
    public record Marks(boolean followingLive, boolean nowLine, int focusedViolation, int selectedActor) {
        /** An export's: the run as it is, nothing chosen. */
        public static final Marks NONE = new Marks(false, false, -1, -1);
    }

    /** Draws the whole timeline; the layout's lanes must be in order ({@link TimelineLayout#orderLanes}). */
    public void paint(TimelineSurface surface, Marks marks) {
        double w = layout.width;
        double h = layout.height;
        surface.fillRect(0, 0, w, h, colours.background());
        if (layout.model == null || w < 10 || h < 10) {
            return;
        }
        double laneH = layout.laneHeight();
        double top = layout.axisHeight();
        double visible = h - top;
        int firstLane = Math.max(0, (int) Math.floor(layout.scrollY / laneH));
        int lastLane = Math.min(layout.order.length - 1, (int) Math.ceil((layout.scrollY + visible) / laneH));
        int width = (int) layout.lanesWidth();
        int height = (int) Math.ceil(visible);
        if (width > 0 && height > 0) {
            int[] pixels = lanePixels.paint(firstLane, lastLane, laneH, width, height);
            surface.pixels(pixels, width, height, layout.gutter(), top);
        }
        for (int i = firstLane; i <= lastLane; i++) {
            double y = top + i * laneH - layout.scrollY;
            Lane lane = layout.model.lanes.get(layout.order[i]);
            if (lane.kind == Actor.Kind.SERVER) {
                laneWords.drawServerLabels(surface, lane, y, laneH);
            } else if (laneH >= layout.em() * 1.5) {
                laneWords.drawSegmentWords(surface, lane, y, laneH);
            }
            laneWords.drawMarkers(surface, lane, y, laneH);
        }
        overlays.drawArrows(surface, laneH, top);
        overlays.drawOverwriteArrows(surface, laneH, top);
        overlays.drawViolationFocus(surface, laneH, top, marks.focusedViolation());
        laneNames.drawGutter(surface, firstLane, lastLane, laneH, top, marks.selectedActor());
        axis.drawAxis(surface, marks.followingLive());
        if (marks.nowLine()) {
            double x = layout.xOf(layout.now);
            surface.line(x, top, x, h, colours.of(Ink.MUTED), 1, 0);
        }
    }

    /**
     * A legend's swatch of {@code state}, filled as the lanes fill it: its colour, with a delay's
     * or a halt's lighter columns.
     */
    public static void swatch(TimelineSurface surface, PaintColours colours, ActorState state, double x, double y,
                              double w, double h) {
        int colour = colours.of(state);
        surface.fillRect(x, y, w, h, colour);
        int light = colours.faded(colour, 0.55);
        for (int column = 0; column < (int) w; column++) {
            if (LaneRaster.lighter(LaneRaster.fill(state), column)) {
                surface.fillRect(x + column, y, 1, h, light);
            }
        }
    }

    /** What a server lane with nothing to show says ({@link LaneWords#quiet}). */
    public static String quiet(Lane lane) {
        return LaneWords.quiet(lane);
    }
}
