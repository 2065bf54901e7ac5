package dev.racelab.export;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.EventLog;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.Sketch;
import dev.racelab.engine.view.Theme;
import dev.racelab.engine.view.timeline.Columns;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.engine.view.timeline.paint.PaintColours;
import dev.racelab.engine.view.timeline.paint.TimelineLayout;
import dev.racelab.engine.view.timeline.paint.TimelinePainter;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A run's timeline as a picture for a slide: its verdict on top, then the timeline drawn by the
 * window's own {@link TimelinePainter} — the time axis, the server lanes with what they said, each
 * worker's states (delays hatched, halts barred, so they read without colour), the server's stripe
 * under each worker, the marks, the arrows — and a legend. The timeline is folded to the picture's
 * pixel columns as it is read ({@link TimelineModel#folded}), so a picture of a run of any length
 * costs its columns. As SVG with real text (the lanes one image in it) or as a PNG at any scale. A
 * window of time may be chosen; the whole run is the default. A picture of the timeline as the
 * window shows it ({@link #asShown}) has the window's width, font, zoom, range and lane height, and
 * its timeline is the window's canvas.
 */
public final class TimelinePicture {

    /** The drawing's width in its own pixels (a PNG multiplies it by its scale). */
    public static final double WIDTH = 1600;
    /**
     * The most pixels a PNG is drawn with: 400 MB as the image's RGB. A picture is at most some
     * 24,700 pixels tall (the most lanes a run may have, 6 pixels each), 40 million pixels at scale
     * 1, so every run's fits at scale 1; a larger scale of a picture of many lanes may not.
     */
    public static final long MOST_PIXELS = 100_000_000;
    private static final double EM = 14;
    private static final double MARGIN = 12;
    /** The header's height: the verdict and the run's settings. */
    private static final double HEADER = Math.ceil(MARGIN + 3.6 * EM);
    private static final double LEGEND = 3.2 * EM;

    private final RunHeader run;
    private final Outcome outcome;
    private final TimelineModel model;
    private final Theme theme;
    private final TimelineLayout layout;
    private final double height;

    /**
     * The picture of a run held whole in memory (the window's): its events read twice, once for
     * where it ends, once folded to the picture's columns.
     *
     * @param record the run
     * @param from   where the picture starts, in ns from the run's start (0: the start)
     * @param to     where it ends (a negative value: the run's end)
     */
    public TimelinePicture(RunRecord record, long from, long to, Theme theme) {
        this(record.header(), record.outcome(), fed(record, columns(from, to, fed(record, Columns.ONE).end())), theme);
    }

    /**
     * The picture of a run whose timeline was folded to {@link #columns}; its header and outcome
     * (null while it goes on) for the verdict on top.
     */
    public TimelinePicture(RunHeader run, Outcome outcome, TimelineModel folded, Theme theme) {
        this(run, outcome, folded, theme, standard());
    }

    private TimelinePicture(RunHeader run, Outcome outcome, TimelineModel folded, Theme theme, TimelineLayout frame) {
        this.run = run;
        this.outcome = outcome;
        this.theme = theme;
        this.model = folded;
        folded.fed();
        layout = frame;
        layout.model = folded;
        layout.viewStart = folded.columns().from();
        layout.nanosPerPixel = folded.columns().nanosPerColumn();
        layout.now = folded.end();
        layout.scrollY = 0;
        layout.orderLanes();
        int lanes = layout.order.length;
        if (layout.fixedLaneHeight <= 0) {
            layout.fixedLaneHeight = lanes > 40 ? Math.max(6, 1000.0 / lanes) : 2.1 * layout.em();
        }
        layout.height = layout.axisHeight() + lanes * layout.fixedLaneHeight;
        this.height = HEADER + layout.height + LEGEND;
    }

    /** The picture's own layout: {@link #WIDTH} wide, text of {@link #EM}, lanes with room for words. */
    private static TimelineLayout standard() {
        TimelineLayout layout = new TimelineLayout();
        layout.width = WIDTH;
        layout.setEm(EM);
        return layout;
    }

    /**
     * The timeline as the window shows it ({@code shown}: its width, font, lane height ({@link
     * TimelineLayout#fixedLaneHeight}), zoom and the time in view), every lane of it, under the
     * verdict and over the legend.
     */
    public static TimelinePicture asShown(RunRecord record, TimelineLayout shown, Theme theme) {
        TimelineLayout layout = new TimelineLayout();
        layout.width = shown.width;
        layout.setEm(shown.em());
        layout.compact = shown.compact;
        layout.fixedLaneHeight = shown.fixedLaneHeight;
        long from = (long) Math.max(0, shown.viewStart);
        int count = (int) layout.lanesWidth();
        Columns columns = new Columns(from, from + Math.max(1_000, Math.round(count * shown.nanosPerPixel)), count);
        return new TimelinePicture(record.header(), record.outcome(), fed(record, columns), theme, layout);
    }

    /**
     * The columns of a picture from {@code from} to {@code to} ns (a negative {@code to}: the run's
     * {@code end}, which a timeline folded to {@link Columns#ONE} tells), at least a microsecond.
     */
    public static Columns columns(long from, long to, long end) {
        long start = Math.max(0, from);
        return new Columns(start, Math.max(start + 1_000, to < 0 ? end : to), (int) standard().lanesWidth());
    }

    /**
     * The picture of run {@code number} (1, 2, …) of {@code file}, read through once more, its
     * timeline folded as it goes; {@code end} is where the run ends ({@link RunExtents}).
     */
    public static TimelinePicture read(RecordingReader reader, Path file, int number, long from, long to, long end,
                                       Theme theme) throws RecordingException {
        TimelineModel model = TimelineModel.folded(columns(from, to, end));
        OneRun run = OneRun.read(reader, file, number, header -> model::accept);
        return new TimelinePicture(run.header(), run.outcome(), model, theme);
    }

    private static TimelineModel fed(RunRecord record, Columns columns) {
        TimelineModel model = TimelineModel.folded(columns);
        EventLog events = record.events();
        for (long seq = 0; seq < events.size(); seq++) {
            model.accept(events.get(seq));
        }
        return model;
    }

    public double width() {
        return layout.width;
    }

    public double height() {
        return height;
    }

    /** Where the timeline begins, below the header, in the drawing's pixels. */
    public double timelineTop() {
        return HEADER;
    }

    /** The timeline's height (its axis and every lane), in the drawing's pixels. */
    public double timelineHeight() {
        return layout.height;
    }

    /** How many lanes the picture draws. */
    public int laneCount() {
        return layout.order.length;
    }

    /** The PNG's size at {@code scale}, in its pixels: width and height. */
    public long[] pixels(double scale) {
        return new long[] {(long) Math.ceil(layout.width * scale), (long) Math.ceil(height * scale)};
    }

    /** Whether the PNG at {@code scale} has no more than {@link #MOST_PIXELS}. */
    public boolean fits(double scale) {
        long[] size = pixels(scale);
        return scale > 0 && size[0] * size[1] <= MOST_PIXELS;
    }

    /** The largest whole scale at which the PNG fits ({@link #fits}), at most 8; 0 if none does. */
    public int largestScale() {
        int scale = 8;
        while (scale > 0 && !fits(scale)) {
            scale--;
        }
        return scale;
    }

    /** The picture as an SVG document. */
    public void svg(OutputStream out) throws IOException {
        SvgSketch svg = new SvgSketch(out, layout.width, height, layout.em(), theme);
        draw(svg);
        svg.finish();
    }

    /**
     * The picture as a PNG, {@code scale} image pixels per drawing pixel; refused, before anything
     * is drawn, where that would be more than {@link #MOST_PIXELS} ({@link #fits}).
     */
    public void png(OutputStream out, double scale) throws IOException {
        javax.imageio.ImageIO.write(image(scale), "png", out);
    }

    /** The picture drawn, {@code scale} image pixels per drawing pixel. */
    public java.awt.image.BufferedImage image(double scale) throws IOException {
        if (!fits(scale)) {
            long[] size = pixels(scale);
            throw new IOException(String.format(Locale.ROOT, "the picture of %,d lanes at scale %s would be %d × %d "
                    + "pixels, more than the %,d a PNG is drawn with; scale %d fits", laneCount(), SvgSketch.n(scale),
                    size[0], size[1], MOST_PIXELS, largestScale()));
        }
        ImageSketch image = new ImageSketch(layout.width, height, layout.em(), scale, theme);
        draw(image);
        return image.image();
    }

    void draw(Drawing s) {
        header(s);
        TimelinePainter painter = new TimelinePainter(layout, new PaintColours(theme));
        s.shifted(HEADER, () -> painter.paint(s, TimelinePainter.Marks.NONE));
        legend(s);
    }

    private void header(Surface s) {
        String headline = outcome == null ? "running" : outcome.banner();
        Ink ink = outcome == null ? Ink.TEXT : switch (outcome.verdict()) {
            case SAFE -> Ink.SAFE;
            case ERROR -> Ink.MUTED;
            default -> Ink.RACE;
        };
        s.text(headline, MARGIN, MARGIN + 1.4 * EM, 1.45 * EM, true, Sketch.Align.LEFT, theme.hex(ink));
        var spec = run.spec();
        // The workers as their lanes name them (client-2, buyer-1), as the command line writes the gates.
        List<String> workers = model.lanes.stream().filter(l -> l != null && l.kind == dev.racelab.engine.Actor.Kind.WORKER)
                .map(l -> l.name).toList();
        String delays = spec.gates().describe(i -> i < workers.size() ? workers.get(i) : "worker " + (i + 1));
        s.text(run.lab() + " · " + spec.strategy() + " · " + spec.workers() + (spec.workers() == 1 ? " worker × "
                        : " workers × ") + spec.ops() + (spec.ops() == 1 ? " op" : " ops")
                        + (delays.isEmpty() ? "" : " · " + delays), MARGIN, MARGIN + 2.9 * EM, 0.95 * EM,
                false, Sketch.Align.LEFT, theme.hex(Ink.MUTED));
    }

    private void legend(Drawing s) {
        PaintColours colours = new PaintColours(theme);
        double y = HEADER + layout.height + 1.8 * EM;
        double x = MARGIN;
        Set<ActorState> seen = EnumSet.copyOf(model.statesSeen().isEmpty() ? EnumSet.of(ActorState.RUNNING)
                : model.statesSeen());
        for (ActorState state : seen) {
            if (state.legend() == null) {
                continue;
            }
            TimelinePainter.swatch(s, colours, state, x, y - 0.9 * EM, EM, EM);
            s.text(state.legend(), x + 1.3 * EM, y, 0.85 * EM, false, Sketch.Align.LEFT, theme.hex(Ink.TEXT));
            x += 1.8 * EM + s.textWidth(state.legend(), 0.85 * EM);
        }
        String violations = model.violationSubject();
        for (EventKind kind : model.marksSeen()) {
            String words = kind == EventKind.VIOLATION && violations != null ? "✕ " + violations : kind.legend();
            if (words == null) {
                continue;
            }
            s.text(words, x, y, 0.85 * EM, false, Sketch.Align.LEFT, theme.hex(kind.ink()));
            x += 1.2 * EM + s.textWidth(words, 0.85 * EM);
        }
        s.text("thin stripe under a worker: what the server says (orange waits, blue holds)", x, y, 0.85 * EM, false,
                Sketch.Align.LEFT, theme.hex(Ink.MUTED));
    }
}
