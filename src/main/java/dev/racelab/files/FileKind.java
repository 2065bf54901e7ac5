package dev.racelab.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** What a file that is not a regular one is, in the words a refusal uses. */
final class FileKind {

    private static final int TYPE = 0170000;
    private static final int FIFO = 0010000;
    private static final int CHARACTER_DEVICE = 0020000;
    private static final int DIRECTORY = 0040000;
    private static final int BLOCK_DEVICE = 0060000;
    private static final int SOCKET = 0140000;

    private FileKind() {
    }

    /** "a FIFO (a named pipe)", "a character device", "a folder", …; "something else" where the system does not say. */
    static String of(Path path, LinkOption... options) {
        int mode;
        try {
            mode = (Integer) Files.getAttribute(path, "unix:mode", options);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return Files.isDirectory(path, options) ? "a folder" : "something else";
        }
        return switch (mode & TYPE) {
            case FIFO -> "a FIFO (a named pipe)";
            case CHARACTER_DEVICE -> "a character device";
            case DIRECTORY -> "a folder";
            case BLOCK_DEVICE -> "a block device";
            case SOCKET -> "a socket";
            default -> "something else";
        };
    }
}
