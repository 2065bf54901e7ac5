package dev.racelab.ui.labfiles;

import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Under the lab list, one line per lab file that needs the user: one changed on disk, offered
 * again (Reload, or Keep the one listed), or one that cannot be read, with its line and column.
 */
public final class ChangedFiles extends VBox {

    public static final String STYLE = "changed-lab-files";

    private final Consumer<Path> reload;
    private final Consumer<Path> keep;
    private final Map<Path, HBox> lines = new LinkedHashMap<>();

    ChangedFiles(Consumer<Path> reload, Consumer<Path> keep) {
        this.reload = reload;
        this.keep = keep;
        getStyleClass().add(STYLE);
        setSpacing(4);
        shown();
    }

    /** {@code file} changed since it was read: Reload, or Keep what is listed. */
    void offer(Path file) {
        if (lines.containsKey(file) && lines.get(file).getStyleClass().contains("changed")) {
            return;
        }
        Label text = words(file.getFileName() + " changed on disk.");
        Button again = new Button("Reload");
        again.setId("reload-" + file.getFileName().toString().replaceAll("[^A-Za-z0-9_-]", "-"));
        again.setOnAction(e -> reload.accept(file));
        Button as = new Button("Keep");
        as.setOnAction(e -> {
            keep.accept(file);
            settled(file);
        });
        put(file, "changed", text, again, as);
    }

    /** {@code file} cannot be read: why, in one line naming its line and column. */
    void unreadable(Path file, String problem) {
        Label text = words(problem);
        text.setTooltip(new Tooltip(problem));
        Button close = new Button("×");
        close.setOnAction(e -> settled(file));
        put(file, "unreadable", text, close);
    }

    /** {@code file} left the folder: nothing to offer about it any more. */
    void gone(Path file) {
        settled(file);
    }

    /** Nothing more to say about {@code file}. */
    void settled(Path file) {
        if (lines.remove(file) != null) {
            shown();
        }
    }

    /** What the bar says now, line by line (for the tests). */
    public java.util.List<String> said() {
        return lines.values().stream().map(line -> ((Label) line.getChildren().get(0)).getText()).toList();
    }

    private void put(Path file, String kind, Label text, Button... buttons) {
        HBox line = new HBox(6, text);
        line.getChildren().addAll(buttons);
        line.getStyleClass().addAll("changed-lab-file", kind);
        HBox.setHgrow(text, Priority.ALWAYS);
        lines.put(file, line);
        shown();
    }

    private static Label words(String text) {
        Label label = new Label(text);
        label.setWrapText(true);
        label.setMinWidth(0);
        label.setMaxWidth(Double.MAX_VALUE);
        return label;
    }

    private void shown() {
        getChildren().setAll(lines.values());
        setVisible(!lines.isEmpty());
        setManaged(!lines.isEmpty());
    }
}
