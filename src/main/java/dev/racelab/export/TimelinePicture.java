package dev.racelab.export;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Glyph;
import dev.racelab.engine.EventLog;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.Sketch;
import dev.racelab.engine.view.Theme;
import dev.racelab.engine.view.timeline.Columns;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.StateColumns;
import dev.racelab.engine.view.timeline.TimelineModel;

import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A run's timeline as a picture for a slide: its verdict on top, the time axis, the server lanes
 * with what they said, each worker's states (delays hatched, halts barred, so they read without
 * colour), the server's stripe under each worker, the marks, the arrows, and a legend — drawn from
 * a {@link TimelineModel} as the window's canvas is, folded to the picture's pixel columns
 * ({@link TimelineModel#folded}), so a picture of a run of any length costs its columns; each
 * column shows the state the window would ({@link StateColumns}). As SVG with real text or as a
 * PNG at any scale. A window of time may be chosen; the whole run is the default.
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
    private static final double GUTTER = 9 * EM;
    /** The lanes' width in the drawing's pixels: the columns a timeline is folded to. */
    private static final int COLUMNS = (int) (WIDTH - 2 * MARGIN - GUTTER);

    private final RunHeader run;
    private final Outcome outcome;
    private final TimelineModel model;
    private final Theme theme;
    private final long from;
    private final long to;
    private final List<Lane> lanes = new ArrayList<>();
    private final StateColumns stateColumns = new StateColumns();
    private final double laneH;
    private final double top;
    private final double height;

    /**
     * The picture of a run held whole in memory (the window's): its events read twice, once for
     * where it ends, once folded to the picture's columns.
     *
     * @param record the run
     * @param from   where the picture starts, in ns from the timeline's origin (0: the start)
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
        this.run = run;
        this.outcome = outcome;
        this.theme = theme;
        this.model = folded;
        folded.fed();
        this.from = folded.columns().from();
        this.to = folded.columns().to();
        for (Lane lane : model.lanes) {
            if (lane != null && lane.kind == Actor.Kind.SERVER) {
                lanes.add(lane);
            }
        }
        for (Lane lane : model.lanes) {
            if (lane != null && lane.kind == Actor.Kind.WORKER) {
                lanes.add(lane);
            }
        }
        this.laneH = lanes.size() > 40 ? Math.max(6, 1000.0 / lanes.size()) : 2.1 * EM;
        this.top = MARGIN + 3.4 * EM + 1.8 * EM;
        this.height = top + lanes.size() * laneH + 3.2 * EM;
    }

    /**
     * The columns of a picture from {@code from} to {@code to} ns (a negative {@code to}: the run's
     * {@code end}, which a timeline folded to {@link Columns#ONE} tells), at least a microsecond.
     */
    public static Columns columns(long from, long to, long end) {
        long start = Math.max(0, from);
        return new Columns(start, Math.max(start + 1_000, to < 0 ? end : to), COLUMNS);
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

    public double height() {
        return height;
    }

    /** How many lanes the picture draws. */
    public int laneCount() {
        return lanes.size();
    }

    /** The PNG's size at {@code scale}, in its pixels: width and height. */
    public long[] pixels(double scale) {
        return new long[] {(long) Math.ceil(WIDTH * scale), (long) Math.ceil(height * scale)};
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
        SvgSketch svg = new SvgSketch(out, WIDTH, height, EM, theme);
        draw(svg);
        svg.finish();
    }

    /**
     * The picture as a PNG, {@code scale} image pixels per drawing pixel; refused, before anything
     * is drawn, where that would be more than {@link #MOST_PIXELS} ({@link #fits}).
     */
    public void png(OutputStream out, double scale) throws IOException {
        if (!fits(scale)) {
            long[] size = pixels(scale);
            throw new IOException(String.format(Locale.ROOT, "the picture of %,d lanes at scale %s would be %d × %d "
                    + "pixels, more than the %,d a PNG is drawn with; scale %d fits", lanes.size(), SvgSketch.n(scale),
                    size[0], size[1], MOST_PIXELS, largestScale()));
        }
        ImageSketch image = new ImageSketch(WIDTH, height, EM, scale, theme);
        draw(image);
        javax.imageio.ImageIO.write(image.image(), "png", out);
    }

    private double x(long t) {
        return MARGIN + GUTTER + (t - from) * (WIDTH - 2 * MARGIN - GUTTER) / (double) (to - from);
    }

    private double laneTop(int pos) {
        return top + pos * laneH;
    }

    void draw(Surface s) {
        header(s);
        axis(s);
        double left = MARGIN + GUTTER;
        double right = WIDTH - MARGIN;
        for (int pos = 0; pos < lanes.size(); pos++) {
            Lane lane = lanes.get(pos);
            double y = laneTop(pos);
            if (pos % 2 == 1) {
                s.rect(MARGIN, y, WIDTH - 2 * MARGIN, laneH, theme.laneBand(), 1);
            }
            if (laneH >= 10) {
                s.text(lane.name, MARGIN + 4, y + laneH * 0.62, Math.min(EM, laneH * 0.6), lane.kind == Actor.Kind.SERVER,
                        Sketch.Align.LEFT, theme.hex(lane.kind == Actor.Kind.SERVER ? Ink.HOLDING : Ink.TEXT));
            }
            Lane current = lane;
            s.clipped(left, y, right - left, laneH, () -> {
                if (current.kind == Actor.Kind.SERVER) {
                    serverLabels(s, current, y);
                } else {
                    states(s, current, y);
                    stripe(s, current, y);
                }
                marks(s, current, y);
            });
        }
        s.clipped(left, top, right - left, lanes.size() * laneH, () -> arrows(s));
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
        String delays = spec.gates().describe(i -> "worker " + (i + 1));
        s.text(run.lab() + " · " + spec.strategy() + " · " + spec.workers() + " workers × " + spec.ops()
                        + " ops" + (delays.isEmpty() ? "" : " · " + delays), MARGIN, MARGIN + 2.9 * EM, 0.95 * EM,
                false, Sketch.Align.LEFT, theme.hex(Ink.MUTED));
    }

    private void axis(Surface s) {
        double span = to - from;
        double step = 1;
        for (double candidate : new double[] {1, 2, 5}) {
            for (double scale = 1e3; scale <= 1e12; scale *= 10) {
                double value = candidate * scale;
                if (span / value <= 12 && (step == 1 || value < step)) {
                    step = value;
                }
            }
        }
        double labelY = top - 0.5 * EM;
        for (double t = Math.ceil(from / step) * step; t <= to; t += step) {
            double x = x((long) t);
            s.line(x, top - 0.2 * EM, x, top + lanes.size() * laneH, theme.grid(), 1, 1);
            s.text(TimelineModel.formatTime(t, step), x + 3, labelY, 0.85 * EM, false, Sketch.Align.LEFT,
                    theme.hex(Ink.MUTED));
        }
        s.text("time", MARGIN + 4, labelY, 0.85 * EM, false, Sketch.Align.LEFT, theme.hex(Ink.MUTED));
    }

    /**
     * A worker's states, a pixel column at a time: where several fall into one column, the one
     * that matters most wins it, as in the window ({@link StateColumns}); a run of columns of one
     * state is one shape.
     */
    private void states(Surface s, Lane lane, double y) {
        stateColumns.paint(lane, COLUMNS, from, model.columns().nanosPerColumn(), model.end());
        double left = MARGIN + GUTTER;
        double y0 = y + laneH * 0.12;
        double h = laneH * 0.62;
        for (int x = 0; x < COLUMNS; ) {
            int state = stateColumns.state(x);
            int until = x + 1;
            while (until < COLUMNS && stateColumns.state(until) == state) {
                until++;
            }
            if (state >= 0) {
                flush(s, ActorState.byOrdinal(state), left + x, left + until, y0, h);
            }
            x = until;
        }
    }

    private void flush(Surface s, ActorState state, double xa, double xb, double y, double h) {
        double w = Math.max(xb - xa, 0.6);
        String ink = theme.hex(state.ink());
        switch (state.pattern()) {
            case NONE -> { }
            case SOLID -> s.rect(xa, y, w, h, ink, 1);
            case HATCHED -> {
                s.rect(xa, y, w, h, ink, 0.55);
                for (double hx = xa - h; hx < xa + w; hx += 5) {
                    double x1 = Math.max(hx, xa);
                    double x2 = Math.min(hx + h, xa + w);
                    if (x2 > x1) {
                        s.line(x1, y + h - (x1 - hx), x2, y + h - (x2 - hx), theme.hex(Ink.WAITING), 1, 0.8);
                    }
                }
            }
            case BARRED -> {
                s.rect(xa, y, w, h, ink, 0.35);
                for (double bx = xa + 1.5; bx < xa + w; bx += 4) {
                    s.line(bx, y, bx, y + h, ink, 1.5, 1);
                }
            }
        }
    }

    /** What the server says of this worker's session: a thin stripe under its states. */
    private void stripe(Surface s, Lane lane, double y) {
        int n = lane.stripeStart.size();
        for (int i = 0; i < n; i++) {
            int state = lane.stripeState.get(i);
            if (state == Lane.SERVER_NONE) {
                continue;
            }
            long a = Math.max(lane.stripeStart.get(i), from);
            long b = Math.min(model.stripeStop(lane, i), to);
            if (b <= a) {
                continue;
            }
            s.rect(x(a), y + laneH * 0.78, Math.max(0.6, x(b) - x(a)), laneH * 0.14,
                    theme.hex(state == Lane.SERVER_HOLDS ? Ink.HOLDING : Ink.WAITING), 1);
        }
    }

    /** A server lane's words, each from the read that said it to the next; an old read's hatched. */
    private void serverLabels(Surface s, Lane lane, double y) {
        int n = lane.labelStart.size();
        if (n == 0) {
            s.text(lane.sampleTime.size() > 0 ? "no lock held or awaited" : "not read", x(from) + 6, y + laneH * 0.62, 0.8 * EM, false, Sketch.Align.LEFT,
                    theme.hex(Ink.MUTED));
            return;
        }
        double px = Math.min(0.85 * EM, laneH * 0.5);
        double textEnd = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            long a = Math.max(lane.labelStart.get(i), from);
            long b = Math.min(model.labelStop(lane, i), to);
            if (b <= a) {
                continue;
            }
            double xa = x(a);
            double w = Math.max(0.6, x(b) - xa);
            String ink = theme.hex(Ink.values()[lane.labelInk.get(i)]);
            boolean stale = lane.labelStale.get(i) == 1;
            s.rect(xa, y + laneH * 0.12, w, laneH * 0.76, ink, stale ? 0.08 : 0.14);
            s.line(xa, y + laneH * 0.12, xa, y + laneH * 0.88, ink, 1, 0.6);
            if (stale) {
                // No read came in time here: what is shown is an older read's, hatched as in the window.
                double h = laneH * 0.76;
                for (double hx = xa - h; hx < xa + w; hx += 6) {
                    double x1 = Math.max(hx, xa);
                    double x2 = Math.min(hx + h, xa + w);
                    if (x2 > x1) {
                        s.line(x1, y + laneH * 0.88 - (x1 - hx), x2, y + laneH * 0.88 - (x2 - hx),
                                theme.hex(Ink.MUTED), 0.8, 0.6);
                    }
                }
            }
            // Words where something new was said and there is room since the last words: the
            // whole text if it fits before the words change, else the shorter one, which may run
            // over readings too brief to label (their bands still show each change).
            if (!lane.labelSaysNew(i) || xa < textEnd + px * 0.5) {
                continue;
            }
            double room = x(Math.min(model.labelStop(lane, lane.sameLabelUntil(i, to)), to)) - xa - 6;
            String text = lane.labelText.get(i);
            if (s.textWidth(text, px) > room) {
                text = lane.labelShort.get(i);
            }
            s.text(text, xa + 4, y + laneH * 0.62, px, false, Sketch.Align.LEFT, theme.hex(Ink.TEXT));
            textEnd = xa + 4 + s.textWidth(text, px);
        }
    }

    private void marks(Surface s, Lane lane, double y) {
        int n = lane.markTime.size();
        double r = Math.max(2.5, laneH * 0.16);
        double cy = y + laneH * 0.43;
        for (int i = 0; i < n; i++) {
            long t = lane.markTime.get(i);
            if (t < from || t > to) {
                continue;
            }
            EventKind kind = EventKind.values()[lane.markKind.get(i)];
            Glyph glyph = kind.glyph();
            if (glyph == null || glyph == Glyph.NONE) {
                continue;
            }
            double cx = x(t);
            String ink = theme.hex(kind.ink());
            switch (glyph) {
                case DOT -> s.circle(cx, cy, r, ink, 0);
                case TICK -> {
                    s.line(cx - r, cy, cx - r * 0.2, cy + r * 0.8, ink, 2, 1);
                    s.line(cx - r * 0.2, cy + r * 0.8, cx + r, cy - r, ink, 2, 1);
                }
                case RING -> {
                    s.circle(cx, cy, r, ink, 1.5);
                    s.line(cx - r * 0.7, cy + r * 0.7, cx + r * 0.7, cy - r * 0.7, ink, 1.5, 1);
                }
                case CROSS -> {
                    double c = r * 1.3;
                    s.line(cx - c, cy - c, cx + c, cy + c, ink, 2.6, 1);
                    s.line(cx - c, cy + c, cx + c, cy - c, ink, 2.6, 1);
                }
                case CIRCLE -> s.circle(cx, cy, r, ink, 1.5);
                case STROKE -> s.line(cx, y + laneH * 0.55, cx, y + laneH * 0.74, ink, 1.2, 1);
                case BAR -> s.line(cx, y + 1, cx, y + laneH - 1, ink, 2.5, 1);
                default -> { }
            }
        }
    }

    /** The timeline's arrows: releases to the waiters they woke, overwriting writes back to what they wiped out. */
    private void arrows(Surface s) {
        int[] position = new int[model.lanes.size()];
        java.util.Arrays.fill(position, -1);
        for (int pos = 0; pos < lanes.size(); pos++) {
            position[lanes.get(pos).actor] = pos;
        }
        for (int a = 0; a < model.arrowToTime.size(); a++) {
            arrow(s, position, model.arrowFromTime.get(a), model.arrowFromLane.get(a), model.arrowToTime.get(a),
                    model.arrowToLane.get(a), EventKind.WOKEN.ink(), 0.4);
        }
        for (int a = 0; a < model.overwriteFromTime.size(); a++) {
            arrow(s, position, model.overwriteFromTime.get(a), model.overwriteFromLane.get(a),
                    model.overwriteToTime.get(a), model.overwriteToLane.get(a), EventKind.OVERWROTE.ink(), 0.5);
        }
    }

    private void arrow(Surface s, int[] position, long fromTime, int fromLane, long toTime, int toLane, Ink ink,
                       double at) {
        if (fromLane >= position.length || toLane >= position.length || position[fromLane] < 0
                || position[toLane] < 0 || Math.max(fromTime, toTime) < from || Math.min(fromTime, toTime) > to) {
            return;
        }
        double y1 = laneTop(position[fromLane]) + laneH * at;
        double y2 = laneTop(position[toLane]) + laneH * at;
        s.arrow(x(fromTime), y1, x(toTime), y2, theme.hex(ink), 1.5);
    }

    private void legend(Surface s) {
        double y = top + lanes.size() * laneH + 1.6 * EM;
        double x = MARGIN;
        Set<ActorState> seen = EnumSet.copyOf(model.statesSeen().isEmpty() ? EnumSet.of(ActorState.RUNNING)
                : model.statesSeen());
        for (ActorState state : seen) {
            if (state.legend() == null) {
                continue;
            }
            flush(s, state, x, x + EM, y - 0.9 * EM, EM);
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
