package dev.racelab.ui.files;

import dev.racelab.files.OutputFile;
import javafx.scene.control.Alert;
import javafx.scene.control.ButtonType;
import javafx.stage.Window;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Whether the window may write a file the user named, decided with the user: {@link OutputFile}'s
 * rule, and where a file is in the way, the user's answer. A file chooser asks before it hands back
 * the name of a file that exists, so a file exactly as chosen there is replaced without asking
 * again; any other name that meets a file (typed, dropped, a default, a chooser's name with an
 * ending added, a link to a file) is asked about here first. A name RaceLab will not write (a
 * folder, a FIFO, a device, a link to nowhere) is one message. Owned by the FX thread.
 */
public final class OutputQuestion {

    /** The style class of the question asked before replacing a file. */
    public static final String QUESTION = "replace-question";
    /** The style class of the message refusing a name. */
    public static final String REFUSED = "output-refused";

    private OutputQuestion() {
    }

    /**
     * Calls {@code then} with the output to write {@code file} through, once it may be: at once, or
     * after the user agreed to replace what is there; never if the user says no or RaceLab refuses.
     *
     * @param chosen  whether a file chooser handed back exactly {@code file}, having asked about it
     * @param heading what the refusal's heading says: "The export was not written"
     */
    public static void decide(Path file, boolean chosen, Window owner, String heading, Consumer<OutputFile> then) {
        try {
            then.accept(OutputFile.check(file, false));
        } catch (OutputFile.Failed e) {
            Path existing = e.existing().orElse(null);
            if (existing == null) {
                refuse(owner, heading, e.getMessage());
            } else if (chosen && existing.equals(file.toAbsolutePath())) {
                replace(file, owner, heading, then);
            } else {
                ask(file, existing, owner, heading, then);
            }
        }
    }

    private static void ask(Path file, Path existing, Window owner, String heading, Consumer<OutputFile> then) {
        boolean link = !existing.equals(file.toAbsolutePath());
        Alert question = new Alert(Alert.AlertType.CONFIRMATION, "", ButtonType.CANCEL, ButtonType.OK);
        question.initOwner(owner);
        question.setTitle("RaceLab");
        question.setHeaderText(link ? file.getFileName() + " is a link to " + existing + ". Replace that file?"
                : file.getFileName() + " already exists. Replace it?");
        question.setContentText(link ? "The link stays, and leads to the new file." : "It is in " + existing.getParent()
                + ".");
        question.getDialogPane().getStyleClass().add(QUESTION);
        question.setOnHidden(event -> {
            if (question.getResult() == ButtonType.OK) {
                replace(file, owner, heading, then);
            }
        });
        question.show();
    }

    private static void replace(Path file, Window owner, String heading, Consumer<OutputFile> then) {
        OutputFile output;
        try {
            output = OutputFile.check(file, true);
        } catch (OutputFile.Failed e) {
            refuse(owner, heading, e.getMessage());
            return;
        }
        then.accept(output);
    }

    private static void refuse(Window owner, String heading, String message) {
        Alert alert = new Alert(Alert.AlertType.ERROR, message);
        alert.initOwner(owner);
        alert.setTitle("RaceLab");
        alert.setHeaderText(heading);
        alert.getDialogPane().getStyleClass().add(REFUSED);
        alert.getDialogPane().setMinWidth(520);
        alert.show();
    }
}
