package dev.racelab.export;

import dev.racelab.engine.Batch;
import dev.racelab.engine.Ink;
import dev.racelab.engine.KeyFigure;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.Sketch;
import dev.racelab.engine.view.Theme;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A batch's outcome as a chart: with a sweep, how often each strategy failed at each delay (race
 * probability vs delay, broken and fixed on one chart); without one, a histogram of the lab's key
 * figure over the runs, a bar per strategy at each value. Each strategy has its ink and its own
 * marker shape and line dash, so the lines read without colour too. Drawn on a {@link Surface},
 * so the window shows, and PNG and SVG export, the same picture; {@link #csv} gives its numbers.
 */
public final class BatchChart {

    private static final double EM = 14;
    private static final List<Ink> BROKEN = List.of(Ink.RACE, Ink.WAITING, Ink.CRITICAL);
    private static final List<Ink> FIXED = List.of(Ink.SAFE, Ink.HOLDING, Ink.RUNNING, Ink.MUTED);
    private static final double[][] DASHES = {{}, {8, 4}, {2, 3}, {10, 3, 2, 3}};

    private final Batch.Result result;
    private final KeyFigure figure;
    private final String title;
    private final Predicate<String> broken;
    private final List<String> strategies;

    /**
     * @param title  what the batch was: "counter · 20 runs at each delay of after-read"
     * @param broken whether a strategy is one of the lab's broken ones
     */
    public BatchChart(Batch.Result result, KeyFigure figure, String title, Predicate<String> broken) {
        this.result = result;
        this.figure = figure;
        this.title = title;
        this.broken = broken;
        this.strategies = new ArrayList<>(result.points().keySet());
    }

    /** Whether the batch swept a delay (a curve), rather than repeating one configuration (a histogram). */
    public boolean swept() {
        return result.points().values().stream().anyMatch(points -> points.size() > 1
                || points.stream().anyMatch(p -> p.delay() != null));
    }

    /** Draws the chart on an image of {@code width} × {@code height} pixels (the window's, or a PNG's at a scale). */
    public ImageSketch image(double width, double height, double scale, Theme theme) {
        ImageSketch image = new ImageSketch(width, height, EM, scale, theme);
        draw(image, theme);
        return image;
    }

    public void png(OutputStream out, double scale, Theme theme) throws IOException {
        javax.imageio.ImageIO.write(image(900, 560, scale, theme).image(), "png", out);
    }

    public void svg(OutputStream out, Theme theme) throws IOException {
        SvgSketch svg = new SvgSketch(out, 900, 560, EM, theme);
        draw(svg, theme);
        svg.finish();
    }

    /**
     * The numbers: a line per strategy and delay (or per strategy without a sweep) with its runs,
     * failures, every verdict's count and the key figure's mean and largest value.
     */
    public String csv() {
        StringBuilder out = new StringBuilder("strategy,delay_ms,runs,failed");
        for (Verdict verdict : Verdict.values()) {
            out.append(',').append(verdict.name());
        }
        String name = figure.words().replaceAll("[^A-Za-z0-9]+", "_").replaceAll("^_|_$", "");
        out.append(",mean_").append(name).append(",max_").append(name).append("\r\n");
        for (Map.Entry<String, List<Batch.Point>> strategy : result.points().entrySet()) {
            for (Batch.Point point : strategy.getValue()) {
                out.append(CsvExport.field(strategy.getKey())).append(',')
                        .append(point.delay() == null ? "" : point.delay()).append(',').append(point.runs()).append(',')
                        .append(point.failed());
                for (Verdict verdict : Verdict.values()) {
                    out.append(',').append(point.verdicts().getOrDefault(verdict, 0));
                }
                double mean = point.figures().stream().mapToDouble(Double::doubleValue).average().orElse(0);
                double max = point.figures().stream().mapToDouble(Double::doubleValue).max().orElse(0);
                out.append(',').append(number(mean)).append(',').append(number(max)).append("\r\n");
            }
        }
        return out.toString();
    }

    private static String number(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.format(Locale.ROOT, "%.2f", value);
    }

    /** The ink of strategy {@code index}: the broken ones in the race's warm inks, the fixes in cool ones. */
    private Ink ink(String strategy) {
        List<String> same = strategies.stream().filter(s -> broken.test(s) == broken.test(strategy)).toList();
        List<Ink> inks = broken.test(strategy) ? BROKEN : FIXED;
        return inks.get(same.indexOf(strategy) % inks.size());
    }

    void draw(Surface s, Theme theme) {
        double w = s.width();
        double h = s.height();
        s.text(title, EM, 1.5 * EM, 1.05 * EM, true, Sketch.Align.LEFT, theme.hex(Ink.TEXT));
        String counts = String.join("   ·   ", strategies.stream().map(strategy -> {
            List<Batch.Point> points = result.points().get(strategy);
            int runs = points.stream().mapToInt(Batch.Point::runs).sum();
            int failed = points.stream().mapToInt(Batch.Point::failed).sum();
            return strategy + ": " + failed + " of " + runs + " failed";
        }).toList());
        s.text(counts + (result.cancelled() ? "   (cancelled)" : ""), EM, 2.9 * EM, 0.85 * EM, false,
                Sketch.Align.LEFT, theme.hex(Ink.MUTED));
        double left = 4.2 * EM;
        double right = w - EM;
        double top = 6.4 * EM; // the axis's label (top - 1.3 em) a line clear of the counts (2.9 em)
        double bottom = h - 4.6 * EM;
        if (bottom - top < 2 * EM || right - left < 4 * EM) {
            return;
        }
        if (swept()) {
            sweep(s, theme, left, right, top, bottom);
        } else {
            histogram(s, theme, left, right, top, bottom);
        }
        legend(s, theme, h - 1.2 * EM);
    }

    private void sweep(Surface s, Theme theme, double left, double right, double top, double bottom) {
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (List<Batch.Point> points : result.points().values()) {
            for (Batch.Point point : points) {
                lo = Math.min(lo, point.delay());
                hi = Math.max(hi, point.delay());
            }
        }
        long span = Math.max(1, hi - lo);
        long from = lo;
        java.util.function.DoubleUnaryOperator x = d -> left + (d - from) * (right - left) / span;
        java.util.function.DoubleUnaryOperator y = rate -> bottom - rate * (bottom - top);
        for (int pct = 0; pct <= 100; pct += 25) {
            double gy = y.applyAsDouble(pct / 100.0);
            s.line(left, gy, right, gy, theme.grid(), 1, 1);
            s.text(pct + "%", left - 0.4 * EM, gy + 0.3 * EM, 0.8 * EM, false, Sketch.Align.RIGHT, theme.hex(Ink.MUTED));
        }
        List<Long> ticks = new ArrayList<>();
        result.points().values().iterator().next().forEach(p -> ticks.add(p.delay()));
        int every = Math.max(1, (int) Math.ceil(ticks.size() / 12.0));
        for (int i = 0; i < ticks.size(); i += every) {
            double tx = x.applyAsDouble(ticks.get(i));
            s.line(tx, bottom, tx, bottom + 0.3 * EM, theme.hex(Ink.OUTLINE), 1, 1);
            s.text(String.valueOf(ticks.get(i)), tx, bottom + 1.2 * EM, 0.8 * EM, false, Sketch.Align.CENTER,
                    theme.hex(Ink.MUTED));
        }
        s.text("delay, ms", (left + right) / 2, bottom + 2.4 * EM, 0.85 * EM, false, Sketch.Align.CENTER,
                theme.hex(Ink.MUTED));
        s.text("runs that failed", left - 3.4 * EM, top - 1.3 * EM, 0.85 * EM, false, Sketch.Align.LEFT,
                theme.hex(Ink.MUTED));
        for (int k = 0; k < strategies.size(); k++) {
            String strategy = strategies.get(k);
            String hex = theme.hex(ink(strategy));
            double[] dash = DASHES[k % DASHES.length];
            List<Batch.Point> points = result.points().get(strategy);
            for (int i = 1; i < points.size(); i++) {
                dashed(s, x.applyAsDouble(points.get(i - 1).delay()), y.applyAsDouble(points.get(i - 1).failureRate()),
                        x.applyAsDouble(points.get(i).delay()), y.applyAsDouble(points.get(i).failureRate()), hex, dash);
            }
            for (Batch.Point point : points) {
                marker(s, k, x.applyAsDouble(point.delay()), y.applyAsDouble(point.failureRate()), hex, theme);
            }
        }
    }

    private void histogram(Surface s, Theme theme, double left, double right, double top, double bottom) {
        // Values as they came (whole numbers for counts); at most 24 bins, grouped when there are more.
        TreeMap<Double, int[]> bins = new TreeMap<>();
        double max = 0;
        for (List<Batch.Point> points : result.points().values()) {
            for (Batch.Point point : points) {
                for (double value : point.figures()) {
                    max = Math.max(max, value);
                }
            }
        }
        double width = max < 24 ? 1 : Math.ceil((max + 1) / 24);
        for (int k = 0; k < strategies.size(); k++) {
            for (Batch.Point point : result.points().get(strategies.get(k))) {
                for (double value : point.figures()) {
                    double bin = Math.floor(value / width) * width;
                    bins.computeIfAbsent(bin, b -> new int[strategies.size()])[k]++;
                }
            }
        }
        int highest = bins.values().stream().mapToInt(counts -> java.util.Arrays.stream(counts).max().orElse(0))
                .max().orElse(1);
        int columns = (int) Math.round((bins.isEmpty() ? 0 : bins.lastKey()) / width) + 1;
        double column = (right - left) / Math.max(1, columns);
        double bar = column * 0.8 / strategies.size();
        // Grid lines at whole counts, every `tick` runs, up to the first line at or above the tallest bar.
        int tick = wholeTick(highest);
        int axis = Math.max(tick, (highest + tick - 1) / tick * tick);
        for (int count = 0; count <= axis; count += tick) {
            double gy = bottom - count * (bottom - top) / axis;
            s.line(left, gy, right, gy, theme.grid(), 1, 1);
            s.text(String.valueOf(count), left - 0.4 * EM, gy + 0.3 * EM, 0.8 * EM, false,
                    Sketch.Align.RIGHT, theme.hex(Ink.MUTED));
        }
        for (Map.Entry<Double, int[]> entry : bins.entrySet()) {
            int index = (int) Math.round(entry.getKey() / width);
            double cx = left + index * column + column * 0.1;
            for (int k = 0; k < strategies.size(); k++) {
                int count = entry.getValue()[k];
                if (count == 0) {
                    continue;
                }
                double bh = count * (bottom - top) / axis;
                String hex = theme.hex(ink(strategies.get(k)));
                s.rect(cx + k * bar, bottom - bh, bar - 1, bh, hex, k % 2 == 0 ? 1 : 0.55);
                if (k % 2 == 1) {
                    for (double hx = cx + k * bar; hx < cx + (k + 1) * bar - 1; hx += 4) {
                        s.line(hx, bottom - bh, hx, bottom, hex, 1, 1);
                    }
                }
            }
        }
        int every = Math.max(1, (int) Math.ceil(columns / 16.0));
        for (int index = 0; index < columns; index += every) {
            s.text(number(index * width), left + (index + 0.5) * column, bottom + 1.2 * EM, 0.8 * EM, false,
                    Sketch.Align.CENTER, theme.hex(Ink.MUTED));
        }
        s.text(figure.words(), (left + right) / 2, bottom + 2.4 * EM, 0.85 * EM, false, Sketch.Align.CENTER,
                theme.hex(Ink.MUTED));
        s.text("runs", left - 3.4 * EM, top - 1.3 * EM, 0.85 * EM, false, Sketch.Align.LEFT, theme.hex(Ink.MUTED));
    }

    /**
     * The step between the runs axis's grid lines: a whole number of runs, 1, 2 or 5 times a power
     * of ten, the smallest that needs at most four steps to reach {@code highest}.
     */
    static int wholeTick(int highest) {
        for (int power = 1; ; power *= 10) {
            for (int mantissa : new int[] {1, 2, 5}) {
                if ((long) mantissa * power * 4 >= highest) {
                    return mantissa * power;
                }
            }
        }
    }

    private void legend(Surface s, Theme theme, double y) {
        double x = EM;
        for (int k = 0; k < strategies.size(); k++) {
            String strategy = strategies.get(k);
            String hex = theme.hex(ink(strategy));
            if (swept()) {
                dashed(s, x, y - 0.3 * EM, x + 2 * EM, y - 0.3 * EM, hex, DASHES[k % DASHES.length]);
                marker(s, k, x + EM, y - 0.3 * EM, hex, theme);
            } else {
                s.rect(x, y - 0.8 * EM, 1.6 * EM, EM, hex, k % 2 == 0 ? 1 : 0.55);
            }
            String words = strategy + (broken.test(strategy) ? " (broken)" : " (fix)");
            s.text(words, x + 2.4 * EM, y, 0.9 * EM, false, Sketch.Align.LEFT, theme.hex(Ink.TEXT));
            x += 3.6 * EM + s.textWidth(words, 0.9 * EM);
        }
    }

    private static void dashed(Surface s, double x1, double y1, double x2, double y2, String hex, double[] dash) {
        if (dash.length == 0) {
            s.line(x1, y1, x2, y2, hex, 2.2, 1);
            return;
        }
        double length = Math.hypot(x2 - x1, y2 - y1);
        double at = 0;
        int i = 0;
        while (at < length) {
            double piece = Math.min(dash[i % dash.length], length - at);
            if (i % 2 == 0) {
                double a = at / length;
                double b = (at + piece) / length;
                s.line(x1 + (x2 - x1) * a, y1 + (y2 - y1) * a, x1 + (x2 - x1) * b, y1 + (y2 - y1) * b, hex, 2.2, 1);
            }
            at += piece;
            i++;
        }
    }

    /** A marker of shape {@code k}: dot, square, triangle, diamond. */
    private static void marker(Surface s, int k, double x, double y, String hex, Theme theme) {
        double r = 0.32 * EM;
        switch (k % 4) {
            case 0 -> s.circle(x, y, r, hex, 0);
            case 1 -> s.rect(x - r, y - r, 2 * r, 2 * r, hex, 1);
            case 2 -> {
                s.line(x - r, y + r, x + r, y + r, hex, 2, 1);
                s.line(x + r, y + r, x, y - r, hex, 2, 1);
                s.line(x, y - r, x - r, y + r, hex, 2, 1);
            }
            default -> {
                s.line(x, y - r, x + r, y, hex, 2, 1);
                s.line(x + r, y, x, y + r, hex, 2, 1);
                s.line(x, y + r, x - r, y, hex, 2, 1);
                s.line(x - r, y, x, y - r, hex, 2, 1);
            }
        }
    }
}
