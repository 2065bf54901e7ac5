package dev.racelab.ui.labfiles;

import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import dev.racelab.tasks.Background;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.model.Settings;
import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.application.Platform;
import javafx.collections.ObservableList;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.stage.FileChooser;
import javafx.util.Duration;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The user's lab files in the window's lab list, after the built-in labs: every {@code .lab} in
 * the user's folder ({@link dev.racelab.backend.DataHome#labs}), and any opened with File ▸ Open
 * lab file or dropped on the window. A file that changes on disk is offered again ({@link
 * ChangedFiles}): reloaded, it replaces its entry, and the lab shown if it was that one. A file
 * that cannot be read is named with its line and column, and nothing in the list changes.
 *
 * <p>The disk is looked at, and files read, on a background thread, every {@link #LOOK_EVERY} (a
 * folder of a few files costs a few {@code stat}s); the list is changed on the FX thread only.
 */
public final class LabFiles {

    static final Duration LOOK_EVERY = Duration.seconds(1.5);
    /** The most files of the folder listed: a folder is for a teacher's labs, not an archive. */
    private static final int MOST = 200;

    private final Labs labs;
    private final ObservableList<Lab> list;
    private final Session session;
    private final Settings settings;
    private final Path folder;
    private final Node anchor;
    /** Each file listed: what it was when read. */
    private final Map<Path, Known> known = new LinkedHashMap<>();
    /** Folder files that could not be read, with why, until they change. */
    private final Map<Path, FileTime> unreadable = new LinkedHashMap<>();
    /** Files being read now: not read twice at once. */
    private final java.util.Set<Path> reading = new java.util.HashSet<>();
    private final ChangedFiles changed;
    private final Timeline looking;
    /** Where an isolation spec opened here goes: the isolation lab's bench. */
    private final Consumer<Path> specs;
    private boolean started;
    /** Looks taken in so far ({@link #looks}). */
    private volatile int looks;
    /** A look at the disk is under way. */
    private boolean scanning;

    /** A file read: its lab, its time on disk then, and whether it came from the folder. */
    private record Known(Lab lab, FileTime modified, boolean inFolder) {
    }

    /**
     * @param list   the lab list's items: the built-in labs, to which the user's are added
     * @param anchor a node of the window, whose window owns the chooser and messages
     */
    public LabFiles(Labs labs, ObservableList<Lab> list, Session session, Settings settings, Path folder, Node anchor,
                    Consumer<Path> specs) {
        this.specs = specs;
        this.labs = labs;
        this.list = list;
        this.session = session;
        this.settings = settings;
        this.folder = folder;
        this.anchor = anchor;
        this.changed = new ChangedFiles(this::reload, this::keep);
        this.looking = new Timeline(new KeyFrame(LOOK_EVERY, e -> look()));
        looking.setCycleCount(Timeline.INDEFINITE);
    }

    /** Whether {@code lab} is one the user wrote, a lab file, rather than one built into RaceLab. */
    public static boolean isYours(Lab lab) {
        return lab.id().endsWith(".lab") && lab.source().isPresent();
    }

    /** Reads the folder now and keeps looking at it and at the files opened. */
    public void start() {
        started = true;
        looking.play();
        look();
    }

    /** Stops looking at the disk: the window is closing. */
    public void stop() {
        looking.stop();
    }

    /** The user's folder of lab files. */
    public Path folder() {
        return folder;
    }

    /** The bar that offers a changed file again, for the lab column. */
    public ChangedFiles changedBar() {
        return changed;
    }

    /** Asks for a lab file and opens it. */
    public void chooseAndOpen() {
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Open a lab file");
        FileChooser.ExtensionFilter lab = new FileChooser.ExtensionFilter("Lab files (*.lab)", "*.lab");
        chooser.getExtensionFilters().addAll(lab, new FileChooser.ExtensionFilter("All files", "*"));
        chooser.setSelectedExtensionFilter(lab);
        settings.get(Settings.LAB_FILE_FOLDER).map(Path::of).filter(Files::isDirectory).or(() -> Optional.of(folder)
                .filter(Files::isDirectory)).ifPresent(dir -> chooser.setInitialDirectory(dir.toFile()));
        File file = chooser.showOpenDialog(anchor.getScene() == null ? null : anchor.getScene().getWindow());
        if (file != null) {
            Path parent = file.toPath().toAbsolutePath().getParent();
            if (parent != null) {
                settings.put(Settings.LAB_FILE_FOLDER, parent.toString());
            }
            open(file.toPath());
        }
    }

    /**
     * Reads {@code file} in the background, lists it and shows its lab; a file that cannot be read,
     * or is no lab file, is named in one message. (An isolation spec opens in the isolation lab,
     * {@link #LabFiles}'s {@code specs}.)
     */
    public void open(Path file) {
        Path path = file.toAbsolutePath().normalize();
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        if (name.endsWith(".spec")) {
            specs.accept(path);
            return;
        }
        if (!name.endsWith(".lab")) {
            problem("This is not a lab file", path + ": a lab file's name ends .lab (docs/lab-format.md)");
            return;
        }
        read(path, (lab, modified) -> {
            put(path, lab, known.containsKey(path) && known.get(path).inFolder(), modified);
            session.select(lab);
        }, problem -> problem("This lab file cannot be opened", problem));
    }

    /**
     * Looks at the disk in the background (the folder's files and the files listed, their times),
     * then, on the FX thread, lists new folder files and offers changed ones again.
     */
    private void look() {
        if (looking.getStatus() == Animation.Status.STOPPED && started || scanning) {
            return;
        }
        scanning = true;
        List<Path> listed = List.copyOf(known.keySet());
        Background.run("lab-folder", () -> {
            Map<Path, FileTime> inFolder = new LinkedHashMap<>();
            for (Path file : folderFiles()) {
                inFolder.put(file, modified(file));
            }
            Map<Path, FileTime> times = new java.util.HashMap<>();
            for (Path file : listed) {
                times.put(file, modified(file));
            }
            Platform.runLater(() -> {
                scanning = false;
                seen(inFolder, times);
            });
        }, e -> Platform.runLater(() -> scanning = false));
    }

    /** How many looks at the disk have been taken in (on the FX thread): one to wait for, not a time. */
    public int looks() {
        return looks;
    }

    /** What a look at the disk found: folder files to read, listed files changed or gone. */
    private void seen(Map<Path, FileTime> inFolder, Map<Path, FileTime> times) {
        looks++;
        inFolder.forEach((file, modified) -> {
            if (!known.containsKey(file) && modified != null && !modified.equals(unreadable.get(file))) {
                read(file, (lab, at) -> put(file, lab, true, at), problem -> {
                    unreadable.put(file, modified);
                    changed.unreadable(file, problem);
                });
            }
        });
        times.forEach((file, now) -> {
            Known entry = known.get(file);
            if (entry == null) {
                return;
            }
            if (now == null && entry.inFolder() && !onScreen(entry.lab())) {
                // Gone from the folder: it leaves the list, unless it is the lab on screen (or a
                // recording's run of it, whose lab is the text the recording carries: same id).
                known.remove(file);
                list.remove(entry.lab());
                changed.gone(file);
            } else if (now != null && !now.equals(entry.modified())) {
                changed.offer(file);
            }
        });
    }

    private boolean onScreen(Lab lab) {
        return session.lab() != null && session.lab().id().equals(lab.id());
    }

    /** Reads {@code file} again: it replaces its entry, and the lab on screen if it was this one. */
    void reload(Path file) {
        Known before = known.get(file);
        read(file, (lab, modified) -> {
            boolean shown = before != null && session.lab() != null && session.lab().id().equals(before.lab().id());
            put(file, lab, before != null && before.inFolder(), modified);
            if (shown) {
                session.select(lab);
            }
        }, problem -> {
            // Still the old one listed: offered again when the file changes again.
            keep(file);
            changed.unreadable(file, problem);
        });
    }

    /** Keeps the lab listed as it is, though {@code file} changed: offered again only when it changes again. */
    void keep(Path file) {
        Known before = known.get(file);
        if (before != null) {
            Background.run("lab-folder", () -> {
                FileTime now = modified(file);
                Platform.runLater(() -> {
                    if (known.get(file) == before) {
                        known.put(file, new Known(before.lab(), now, before.inFolder()));
                    }
                });
            });
        }
    }

    /**
     * Lists {@code lab}, read from {@code file} as it was at {@code modified} (taken before the read,
     * so a save meanwhile is offered): in place of the entry of the same id, else after the others.
     */
    private void put(Path file, Lab lab, boolean inFolder, FileTime modified) {
        known.put(file, new Known(lab, modified, inFolder));
        unreadable.remove(file);
        changed.settled(file);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).id().equals(lab.id())) {
                list.set(i, lab);
                return;
            }
        }
        // After the built-in labs, the user's in the order of their names.
        int at = list.size();
        while (at > 0 && isYours(list.get(at - 1))
                && list.get(at - 1).id().compareTo(lab.id()) > 0) {
            at--;
        }
        list.add(at, lab);
    }

    private void read(Path file, java.util.function.BiConsumer<Lab, FileTime> done, Consumer<String> failed) {
        if (!reading.add(file)) {
            return;
        }
        Background.run("lab-file-reader", () -> {
            Lab lab;
            FileTime modified = modified(file);
            try {
                lab = labs.read(file);
            } catch (IllegalArgumentException e) {
                Platform.runLater(() -> {
                    reading.remove(file);
                    failed.accept(e.getMessage());
                });
                return;
            }
            Platform.runLater(() -> {
                reading.remove(file);
                done.accept(lab, modified);
            });
        });
    }

    /** The folder's {@code .lab} files, in name order; none if it is not there. */
    private List<Path> folderFiles() {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(folder)) {
            return files;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder, "*.lab")) {
            for (Path file : stream) {
                if (files.size() == MOST) {
                    break;
                }
                if (Files.isRegularFile(file)) {
                    files.add(file.toAbsolutePath().normalize());
                }
            }
        } catch (IOException e) {
            return files;
        }
        files.sort(null);
        return files;
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return null;
        }
    }

    private void problem(String header, String message) {
        Alert alert = new Alert(Alert.AlertType.ERROR);
        alert.initOwner(anchor.getScene() == null ? null : anchor.getScene().getWindow());
        alert.setTitle("RaceLab");
        alert.setHeaderText(header);
        alert.setContentText(message);
        alert.getDialogPane().getStyleClass().add("lab-file-problem");
        alert.getDialogPane().setMinWidth(520);
        alert.show();
    }
}
