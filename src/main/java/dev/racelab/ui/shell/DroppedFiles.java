package dev.racelab.ui.shell;

import dev.racelab.ui.recordings.RecordingFiles;
import javafx.application.Platform;
import javafx.css.PseudoClass;
import javafx.scene.input.TransferMode;

import java.nio.file.Path;

/**
 * A file dropped on the window opens as File ▸ Open does ({@link MainView#openDropped}); the window
 * is outlined while one is over it.
 */
final class DroppedFiles {

    private DroppedFiles() {
    }

    /** A recording dropped on the window opens as Open does; the window is outlined while one is over it. */
    static void accept(MainView window, RecordingFiles recordings) {
        PseudoClass dropTarget = PseudoClass.getPseudoClass("drop-target");
        window.setOnDragOver(e -> {
            if (e.getGestureSource() == null && e.getDragboard().hasFiles() && e.getDragboard().getFiles().size() == 1
                    && !recordings.busyProperty().get()) {
                e.acceptTransferModes(TransferMode.COPY);
                window.pseudoClassStateChanged(dropTarget, true);
            }
            e.consume();
        });
        window.setOnDragExited(e -> window.pseudoClassStateChanged(dropTarget, false));
        window.setOnDragDropped(e -> {
            window.pseudoClassStateChanged(dropTarget, false);
            boolean taken = e.getDragboard().hasFiles() && e.getDragboard().getFiles().size() == 1;
            e.setDropCompleted(taken);
            e.consume();
            if (taken) {
                // After the drop completes, so the file manager is not kept waiting by a message.
                Path file = e.getDragboard().getFiles().get(0).toPath();
                Platform.runLater(() -> window.openDropped(file));
            }
        });
    }
}
