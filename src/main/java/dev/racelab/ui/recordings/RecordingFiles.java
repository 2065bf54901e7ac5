package dev.racelab.ui.recordings;

import dev.racelab.engine.EventLog;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunRecord;
import dev.racelab.files.OutputFile;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingFormat;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingWriter;
import dev.racelab.ui.files.OutputQuestion;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.model.Settings;
import dev.racelab.tasks.Background;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.concurrent.Task;
import javafx.scene.Cursor;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.stage.FileChooser;
import javafx.stage.Window;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * Saving and opening recordings from the window: the file choosers (which start in the folder used
 * last), reading and writing on a background thread so a large file never freezes the window, the
 * choice of a run when a file holds several, and one message when a file cannot be read or written,
 * after which nothing shown has changed: not the record, not the settings, not the lab.
 *
 * <p>Opening ends in {@link Session#open}; the menu, a file dropped on the window and the tests
 * all come through {@link #open(Path)}. Owned by the FX thread; a task's {@code succeeded()} and
 * {@code failed()} run there.
 */
public final class RecordingFiles {

    /** Which file the shown record came from. */
    public record Source(Path file, int run, int runs) {
    }

    private static final DateTimeFormatter FILE_STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneId.systemDefault());

    private final Session session;
    private final Labs labs;
    private final Settings settings;
    private final Node anchor;
    private final RecordingReader reader;
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyObjectWrapper<Source> source = new ReadOnlyObjectWrapper<>(this, "source");
    private final ReadOnlyObjectWrapper<Path> saved = new ReadOnlyObjectWrapper<>(this, "saved");
    private RunRecord opened;

    /** @param anchor a node of the window, whose window owns the choosers and messages */
    public RecordingFiles(Session session, Labs labs, Settings settings, Node anchor) {
        this.session = session;
        this.labs = labs;
        this.settings = settings;
        this.anchor = anchor;
        this.reader = new RecordingReader(labs);
        session.recordProperty().addListener((o, a, record) -> {
            if (record != opened) {
                opened = null;
                source.set(null);
            }
            saved.set(null);
        });
    }

    /** Asks for a recording and opens it. */
    public void chooseAndOpen() {
        if (busy.get()) {
            return;
        }
        FileChooser chooser = chooser("Open a recording");
        File file = chooser.showOpenDialog(window());
        if (file != null) {
            remember(file.toPath());
            open(file.toPath());
        }
    }

    /**
     * Reads {@code file} in the background and shows it; a file with several runs asks which one.
     * A file that cannot be read is named in one message, and nothing else changes.
     */
    public void open(Path file) {
        if (busy.get()) {
            return;
        }
        setBusy(true);
        start(new ReadTask(file), "recording-reader");
    }

    /** Asks where to save the shown run, and saves it. */
    public void chooseAndSave() {
        RunRecord record = session.record();
        if (busy.get() || record == null || !record.ended()) {
            return;
        }
        FileChooser chooser = chooser("Save the recording");
        chooser.setInitialFileName(suggestedName(record));
        File chosen = chooser.showSaveDialog(window());
        if (chosen == null) {
            return;
        }
        Path file = chosen.toPath();
        String name = file.getFileName().toString();
        // The chooser asked about replacing the name as typed, not with the ending added.
        boolean asked = name.contains(".");
        if (!asked) {
            file = file.resolveSibling(name + RecordingFormat.EXTENSION);
        }
        remember(file);
        saveTo(file, asked);
    }

    /**
     * Writes the shown run, which must have ended, to {@code file} in the background. A file there
     * is replaced only once the user agreed ({@link OutputQuestion}); a failure is named in one
     * message and leaves any earlier file there as it was.
     */
    public void saveTo(Path file) {
        saveTo(file, false);
    }

    /** @param chosen whether a file chooser handed back exactly {@code file}, having asked about replacing it */
    private void saveTo(Path file, boolean chosen) {
        RunRecord record = session.record();
        if (busy.get() || record == null || !record.ended()) {
            return;
        }
        // The lab on screen ran it: a lab file read again since has the same id and another text.
        Lab lab = session.lab() != null && session.lab().id().equals(record.header().lab()) ? session.lab()
                : labs.find(record.header().lab()).orElseThrow();
        OutputQuestion.decide(file, chosen, window(), "The recording was not saved", output -> {
            setBusy(true);
            start(new WriteTask(output, lab, record), "recording-writer");
        });
    }

    /** Whether a file is being read or written. */
    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** The file the shown record was opened from, or null for a live run. */
    public ReadOnlyObjectProperty<Source> sourceProperty() {
        return source.getReadOnlyProperty();
    }

    /** Where the shown run was last saved, or null. */
    public ReadOnlyObjectProperty<Path> savedProperty() {
        return saved.getReadOnlyProperty();
    }

    private void show(Path file, Recording recording) {
        RunRecord chosen = recording.runs().size() == 1 ? recording.last()
                : new RunPicker(window(), file, recording).showAndWait().orElse(null);
        if (chosen == null) {
            return;
        }
        RunRecord before = opened;
        opened = chosen;
        try {
            session.open(chosen, recording.labOf(chosen));
        } catch (IllegalArgumentException e) {
            opened = before;
            problem("This recording cannot be opened", file + ": " + e.getMessage());
            return;
        }
        source.set(new Source(file, recording.runs().indexOf(chosen) + 1, recording.runs().size()));
    }

    private void setBusy(boolean on) {
        busy.set(on);
        if (anchor.getScene() != null) {
            anchor.getScene().setCursor(on ? Cursor.WAIT : null);
        }
    }

    private static void start(Task<?> task, String name) {
        Background.start(name, task);
    }

    private FileChooser chooser(String title) {
        FileChooser chooser = new FileChooser();
        chooser.setTitle(title);
        FileChooser.ExtensionFilter recordings = new FileChooser.ExtensionFilter(
                "RaceLab recordings (*" + RecordingFormat.EXTENSION + ")", "*" + RecordingFormat.EXTENSION);
        chooser.getExtensionFilters().addAll(recordings, new FileChooser.ExtensionFilter("All files", "*"));
        chooser.setSelectedExtensionFilter(recordings);
        settings.get(Settings.RECORDING_FOLDER).map(Path::of).filter(Files::isDirectory)
                .ifPresent(folder -> chooser.setInitialDirectory(folder.toFile()));
        return chooser;
    }

    private void remember(Path file) {
        Path folder = file.toAbsolutePath().getParent();
        if (folder != null) {
            settings.put(Settings.RECORDING_FOLDER, folder.toString());
        }
    }

    /** {@code counter-read-modify-write-20250512-140312.racelab}: the lab, the strategy, when it started. */
    private static String suggestedName(RunRecord record) {
        return record.header().lab() + "-" + record.header().spec().strategy() + "-"
                + FILE_STAMP.format(record.header().startedAt()) + RecordingFormat.EXTENSION;
    }

    /** One message in a dialog; the caller has changed nothing. */
    private void problem(String header, String message) {
        Alert alert = new Alert(Alert.AlertType.ERROR);
        alert.initOwner(window());
        alert.setTitle("RaceLab");
        alert.setHeaderText(header);
        alert.setContentText(message);
        alert.getDialogPane().getStyleClass().add("recording-problem");
        alert.getDialogPane().setMinWidth(520);
        alert.showAndWait();
    }

    private Window window() {
        return anchor.getScene() == null ? null : anchor.getScene().getWindow();
    }

    /** The failure in one line: a recording's own message, or what went wrong with the file. */
    private static String message(Path file, Throwable failure) {
        if (failure instanceof RecordingException) {
            return failure.getMessage();
        }
        if (failure instanceof OutOfMemoryError) {
            return file + " is too large to show in the memory RaceLab has";
        }
        if (failure == null) {
            return file + ": unknown failure";
        }
        return file + ": " + (failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage());
    }

    /** How long the run took by its own clock, first event to last, for the file's end line. */
    private static long elapsedMs(RunRecord record) {
        EventLog events = record.events();
        long size = events.size();
        return size < 2 ? 0 : (events.get(size - 1).nanos() - events.get(0).nanos()) / 1_000_000;
    }

    private final class ReadTask extends Task<Recording> {

        private final Path file;

        ReadTask(Path file) {
            this.file = file;
        }

        @Override
        protected Recording call() throws RecordingException {
            return reader.read(file);
        }

        @Override
        protected void succeeded() {
            setBusy(false);
            show(file, getValue());
        }

        @Override
        protected void failed() {
            setBusy(false);
            problem("This recording cannot be opened", message(file, getException()));
        }
    }

    private final class WriteTask extends Task<Path> {

        private final OutputFile output;
        private final Lab lab;
        private final RunRecord record;

        WriteTask(OutputFile output, Lab lab, RunRecord record) {
            this.output = output;
            this.lab = lab;
            this.record = record;
        }

        @Override
        protected Path call() throws RecordingException {
            try (RecordingWriter writer = RecordingWriter.create(output)) {
                writer.write(lab, record);
                // A window's run starts with its servers already up: no start-up time is part of it.
                writer.commit(elapsedMs(record), 0, false);
                return writer.target();
            }
        }

        @Override
        protected void succeeded() {
            setBusy(false);
            if (session.record() == record) {
                saved.set(getValue());
            }
        }

        @Override
        protected void failed() {
            setBusy(false);
            problem("The recording was not saved", message(output.named(), getException()));
        }
    }
}
