package dev.racelab.cli;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Theme;
import dev.racelab.export.CsvExport;
import dev.racelab.export.LabPicture;
import dev.racelab.export.RunExtents;
import dev.racelab.export.TimelinePicture;
import dev.racelab.export.TraceExport;
import dev.racelab.files.OutputFile;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingSink;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code export FILE --format FORMAT --out OUT}: a recording in another form, with no server and
 * no window, in memory that does not grow with the recording. The CSV and the trace are written as
 * the file is read, in one pass; a picture reads it twice, once to know its runs and where the one
 * drawn ends, once to fold that run's timeline to the picture's pixel columns (or to feed the
 * lab's view), before anything is written.
 */
final class Export {

    private Export() {
    }

    /** What {@code export} draws: which run, the picture or the timeline, a window of time, a PNG's scale. */
    record Choice(Long run, boolean picture, Long fromMs, Long toMs, Long scale) {
    }

    /** The recording's refusal, carried out of the export's writing, which only throws {@link IOException}. */
    private static final class Refused extends IOException {
        private final RecordingException refusal;

        Refused(RecordingException refusal) {
            super(refusal.getMessage(), refusal);
            this.refusal = refusal;
        }
    }

    /** Refuses a format or choices that do not go together, before anything is read or written. */
    static void check(String format, Choice choice) throws UsageException {
        if (!List.of("trace", "csv", "svg", "png").contains(format)) {
            throw new UsageException("--format " + format + ": the formats are trace, csv, svg and png");
        }
        boolean drawing = format.equals("svg") || format.equals("png");
        if (!drawing && (choice.run() != null || choice.picture() || choice.fromMs() != null || choice.toMs() != null
                || choice.scale() != null)) {
            throw new UsageException("--run, --picture, --from, --to and --scale go with --format svg or png");
        }
        if (choice.scale() != null && (!format.equals("png") || choice.scale() < 1 || choice.scale() > 8)) {
            throw new UsageException("--scale is for png, from 1 to 8");
        }
        if (choice.fromMs() != null && choice.toMs() != null && choice.toMs() <= choice.fromMs()) {
            throw new UsageException("--to " + choice.toMs() + " must come after --from " + choice.fromMs());
        }
    }

    /** Writes {@code file} as {@code format} (checked) to {@code output} (checked). */
    static void write(Labs labs, Path file, String format, OutputFile output, Choice choice)
            throws RecordingException, UsageException {
        RecordingReader reader = new RecordingReader(labs);
        OutputFile.Content content = format.equals("svg") || format.equals("png")
                ? drawing(labs, reader, file, format, choice) : stream -> streamed(reader, file, format, stream);
        try {
            output.write(content);
        } catch (OutputFile.Failed e) {
            if (e.getCause() instanceof Refused refused) {
                throw refused.refusal;
            }
            throw new UsageException(e.getMessage());
        }
    }

    /** The CSV or the trace, written as {@code file} is read. */
    private static void streamed(RecordingReader reader, Path file, String format, java.io.OutputStream stream)
            throws IOException {
        // The trace writes its UTF-8 itself (and flushes it at the end); the CSV writes text.
        Writer csv = format.equals("trace") ? null
                : new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 1 << 16);
        RecordingSink sink = csv == null ? new TraceExport(stream) : new CsvExport(csv);
        try {
            reader.read(file, sink);
        } catch (RecordingException e) {
            throw new Refused(e);
        }
        if (csv != null) {
            csv.flush();
        }
    }

    /** A picture of one run, read and folded before anything is written: what draws it. */
    private static OutputFile.Content drawing(Labs labs, RecordingReader reader, Path file, String format,
                                              Choice choice) throws RecordingException, UsageException {
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            // The CSV and the trace read as they go; a picture reads its recording twice.
            throw new UsageException(file + " is not a regular file: a picture reads its recording twice, so give "
                    + "it a file (the CSV and the trace read a pipe)");
        }
        RunExtents extents = RunExtents.of(reader, file);
        int runs = extents.runs();
        if (choice.run() != null && (choice.run() < 1 || choice.run() > runs)) {
            throw new UsageException("--run " + choice.run() + ": " + file + " holds " + runs + " run"
                    + (runs == 1 ? "" : "s"));
        }
        int number = choice.run() == null ? runs : (int) (long) choice.run();
        boolean svg = format.equals("svg");
        if (choice.picture()) {
            double scale = choice.scale() == null ? 2 : choice.scale();
            Lab lab = extents.lab(number);
            LabView view = LabPicture.read(reader, file, number, lab::view);
            if (!view.hasPicture()) {
                throw new UsageException("--picture: lab " + lab.id() + " draws no picture");
            }
            return svg ? stream -> LabPicture.svg(view, Theme.LIGHT, stream)
                    : stream -> LabPicture.png(view, Theme.LIGHT, scale, stream);
        }
        TimelinePicture timeline = TimelinePicture.read(reader, file, number,
                choice.fromMs() == null ? 0 : choice.fromMs() * 1_000_000,
                choice.toMs() == null ? -1 : choice.toMs() * 1_000_000, extents.end(number), Theme.LIGHT);
        if (svg) {
            return timeline::svg;
        }
        double scale = choice.scale() == null ? Math.min(2, timeline.largestScale()) : choice.scale();
        if (!timeline.fits(scale)) {
            throw tooLarge(timeline, scale, choice.scale() != null);
        }
        return stream -> timeline.png(stream, scale);
    }

    /**
     * A timeline's PNG of more pixels than one is drawn with ({@link TimelinePicture#MOST_PIXELS}),
     * which the scale asked for would make of a picture of many lanes: refused, naming its size and
     * what fits.
     */
    private static UsageException tooLarge(TimelinePicture timeline, double scale, boolean asked) {
        long[] size = timeline.pixels(scale);
        int fits = timeline.largestScale();
        return new UsageException(String.format(Locale.ROOT, "%sthe picture of %,d lanes would be %d × %d pixels, more than the "
                        + "%,d a PNG is drawn with; use %s", asked ? "--scale " + (long) scale + ": " : "",
                timeline.laneCount(), size[0], size[1], TimelinePicture.MOST_PIXELS,
                fits == 0 ? "--format svg" : "--scale " + fits + (fits > 1 ? " or less" : "") + ", or --format svg"));
    }
}
