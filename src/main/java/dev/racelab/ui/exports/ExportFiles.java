package dev.racelab.ui.exports;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Theme;
import dev.racelab.export.CsvExport;
import dev.racelab.export.LabPicture;
import dev.racelab.engine.view.timeline.paint.TimelineLayout;
import dev.racelab.export.TimelinePicture;
import dev.racelab.export.TraceExport;
import dev.racelab.files.OutputFile;
import dev.racelab.ui.files.OutputQuestion;
import dev.racelab.ui.model.Settings;
import dev.racelab.tasks.Background;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.concurrent.Task;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.stage.FileChooser;
import javafx.stage.Window;

import java.io.File;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * Exports from the window (File ▸ Export): the timeline, as shown or whole, and the lab's picture
 * as PNG or SVG for slides; the events as CSV; the run as a Chrome trace for Perfetto. The same
 * exporters as {@code racelab export}, on the shown record (live or opened), written in the
 * background and moved into place whole; a failure is one message, and nothing is half written.
 * Owned by the FX thread.
 */
public final class ExportFiles {

    /** What to export, with the file ending and the words the menu uses. */
    public enum Kind {
        TIMELINE_SHOWN_PNG("Timeline as shown, PNG…", "png"),
        TIMELINE_SHOWN_SVG("Timeline as shown, SVG…", "svg"),
        TIMELINE_PNG("Whole timeline, PNG…", "png"),
        TIMELINE_SVG("Whole timeline, SVG…", "svg"),
        PICTURE_PNG("Lab's picture, PNG…", "png"),
        PICTURE_SVG("Lab's picture, SVG…", "svg"),
        CSV("Events, CSV…", "csv"),
        TRACE("Chrome trace for Perfetto…", "json");

        private final String words;
        private final String ending;

        Kind(String words, String ending) {
            this.words = words;
            this.ending = ending;
        }

        public String words() {
            return words;
        }

        boolean picture() {
            return this == PICTURE_PNG || this == PICTURE_SVG;
        }
    }

    private final Supplier<RunRecord> shown;
    private final Supplier<TimelineLayout> shownLayout;
    private final Supplier<Lab> shownLab;
    private final Settings settings;
    private final Node anchor;
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyObjectWrapper<Path> exported = new ReadOnlyObjectWrapper<>(this, "exported");
    private int scale = 2;

    /**
     * @param shown       the record the window shows now (null: none)
     * @param shownLayout the timeline as the window shows it now: its size, font, zoom and time in view
     * @param shownLab    the lab of the record shown (a recording's own, for a lab file it carried)
     */
    public ExportFiles(Supplier<RunRecord> shown, Supplier<TimelineLayout> shownLayout, Supplier<Lab> shownLab,
                       Settings settings, Node anchor) {
        this.shown = shown;
        this.shownLayout = shownLayout;
        this.shownLab = shownLab;
        this.settings = settings;
        this.anchor = anchor;
    }

    /** PNG exports' image pixels per screen pixel. */
    public void scale(int pixels) {
        this.scale = Math.max(1, Math.min(8, pixels));
    }

    public int scale() {
        return scale;
    }

    /** Whether a file is being written. */
    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** The file last exported, or null. */
    public ReadOnlyObjectProperty<Path> exportedProperty() {
        return exported.getReadOnlyProperty();
    }

    /** Whether the shown run draws {@code kind} (every run draws a timeline; not every lab a picture). */
    public boolean canExport(Kind kind) {
        RunRecord record = shown.get();
        return record != null && (!kind.picture() || view(record).hasPicture());
    }

    /** Asks where to write {@code kind}, then writes it. */
    public void chooseAndExport(Kind kind) {
        RunRecord record = shown.get();
        if (busy.get() || record == null) {
            return;
        }
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Export: " + kind.words().replace("…", ""));
        FileChooser.ExtensionFilter filter = new FileChooser.ExtensionFilter(kind.ending.toUpperCase() + " (*."
                + kind.ending + ")", "*." + kind.ending);
        chooser.getExtensionFilters().add(filter);
        chooser.setInitialFileName(record.header().lab() + "-" + record.header().spec().strategy()
                + (kind.picture() ? "-picture" : kind == Kind.CSV ? "-events" : kind == Kind.TRACE ? "-trace"
                : "-timeline") + "." + kind.ending);
        settings.get(Settings.RECORDING_FOLDER).map(Path::of).filter(Files::isDirectory)
                .ifPresent(folder -> chooser.setInitialDirectory(folder.toFile()));
        File chosen = chooser.showSaveDialog(window());
        if (chosen != null) {
            Path file = chosen.toPath();
            // The chooser asked about replacing the name as typed, not with the ending added.
            boolean asked = file.getFileName().toString().contains(".");
            if (!asked) {
                file = file.resolveSibling(file.getFileName() + "." + kind.ending);
            }
            exportTo(kind, file, asked);
        }
    }

    /**
     * Writes {@code kind} of the shown run to {@code file} in the background, a file there replaced
     * only once the user agreed ({@link OutputQuestion}); the menu and the tests come here.
     */
    public void exportTo(Kind kind, Path file) {
        exportTo(kind, file, false);
    }

    /** @param chosen whether a file chooser handed back exactly {@code file}, having asked about replacing it */
    private void exportTo(Kind kind, Path file, boolean chosen) {
        RunRecord record = shown.get();
        if (busy.get() || record == null) {
            return;
        }
        TimelineLayout window = shownLayout.get();
        OutputQuestion.decide(file, chosen, window(), "The export was not written",
                output -> write(kind, output, record, window));
    }

    private void write(Kind kind, OutputFile output, RunRecord record, TimelineLayout window) {
        LabView picture = kind.picture() ? view(record) : null;
        busy.set(true);
        Task<Path> task = new Task<>() {
            @Override
            protected Path call() throws Exception {
                return output.write(out -> {
                    switch (kind) {
                        case TIMELINE_SHOWN_PNG -> TimelinePicture.asShown(record, window, Theme.LIGHT).png(out, scale);
                        case TIMELINE_SHOWN_SVG -> TimelinePicture.asShown(record, window, Theme.LIGHT).svg(out);
                        case TIMELINE_PNG -> new TimelinePicture(record, 0, -1, Theme.LIGHT).png(out, scale);
                        case TIMELINE_SVG -> new TimelinePicture(record, 0, -1, Theme.LIGHT).svg(out);
                        case PICTURE_PNG -> LabPicture.png(picture, Theme.LIGHT, scale, out);
                        case PICTURE_SVG -> LabPicture.svg(picture, Theme.LIGHT, out);
                        case CSV -> {
                            Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8);
                            CsvExport.write(List.of(record), writer);
                            writer.flush();
                        }
                        case TRACE -> TraceExport.write(List.of(record), out);
                    }
                });
            }

            @Override
            protected void succeeded() {
                busy.set(false);
                exported.set(getValue());
            }

            @Override
            protected void failed() {
                busy.set(false);
                Throwable e = getException();
                Alert alert = new Alert(Alert.AlertType.ERROR, e instanceof OutputFile.Failed ? e.getMessage()
                        : "cannot write " + output.named() + ": " + e);
                alert.setHeaderText("The export was not written");
                alert.initOwner(window());
                alert.show();
            }
        };
        Background.start("exporter", task);
    }

    /** A fresh view of the lab's picture, fed the whole record (the window's own view is the FX thread's, live). */
    private LabView view(RunRecord record) {
        return LabPicture.fed(shownLab.get().view(record.header()), record);
    }

    private Window window() {
        return anchor.getScene() == null ? null : anchor.getScene().getWindow();
    }
}
