package dev.racelab.export;

import dev.racelab.record.PartialFile;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes an export the way recordings are written: to a file beside the target, moved into place
 * only when whole, so a failed or cut export never leaves half a file, nor replaces a good one.
 */
public final class ExportFile {

    /** What writes the export's bytes. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /** An export that could not be written: the sentence names the file as the user gave it. */
    public static final class Failed extends Exception {
        Failed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private ExportFile() {
    }

    public static void write(Path target, Content content) throws Failed {
        Path absolute = target.toAbsolutePath();
        Path folder = absolute.getParent();
        if (folder == null || !Files.isDirectory(folder)) {
            throw new Failed("cannot write " + target + ": the folder " + folder + " does not exist", null);
        }
        if (Files.isDirectory(absolute)) {
            throw new Failed("cannot write " + target + ": that is a folder, not a file", null);
        }
        Path partial = null;
        try {
            partial = PartialFile.beside(folder, absolute);
            try (OutputStream out = Files.newOutputStream(partial)) {
                content.writeTo(out);
            }
            try {
                Files.move(partial, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(partial, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
            partial = null;
        } catch (NoSuchFileException e) {
            throw new Failed("cannot write " + target + ": no file can be made in " + folder, e);
        } catch (IOException e) {
            throw new Failed("cannot write " + target + ": " + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage()), e);
        } finally {
            if (partial != null) {
                try {
                    Files.deleteIfExists(partial);
                } catch (IOException ignored) {
                    // A temporary file of ours left in the folder; nothing else was touched.
                }
            }
        }
    }
}
