package dev.racelab.record;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The file a recording or an export is written to before it is moved into place whole: hidden
 * beside its target, so the move is a rename on the same file system. Made with the permissions
 * any new file of the user gets (the umask's), not a temporary file's owner-only ones, since it
 * becomes the user's file.
 */
public final class PartialFile {

    private PartialFile() {
    }

    /** A new, empty, hidden file in {@code folder} named after {@code target}: {@code .NAME.<random>.part}. */
    public static Path beside(Path folder, Path target) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path candidate = folder.resolve("." + target.getFileName() + "."
                    + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".part");
            try {
                return Files.createFile(candidate);
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
            }
        }
    }
}
