package dev.racelab.cli;

import dev.racelab.files.OutputFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files the command line writes at the user's word ({@code run --record}, {@code export --out},
 * {@code isolation --out}), checked by {@link OutputFile}'s rule before the command does any work:
 * a file that may not be written is one line and exit 2, and an existing one is replaced only with
 * {@code --force}. A link written through is said on standard error.
 */
final class Outputs {

    private Outputs() {
    }

    /**
     * {@code named}, checked; {@code doing} is how the refusal puts it ("record to", "write").
     *
     * @throws UsageException naming the file and why, with the {@code --force} that would help
     */
    static OutputFile check(Path named, boolean force, String doing, PrintStream err) throws UsageException {
        OutputFile output;
        try {
            output = OutputFile.check(named, force);
        } catch (OutputFile.Failed e) {
            String hint = e.existing().map(file -> file.equals(named.toAbsolutePath())
                    ? " (--force replaces it)" : " (--force writes " + file + ", keeping the link)").orElse("");
            throw new UsageException("cannot " + doing + " " + named + ": " + e.reason() + hint);
        }
        output.note().ifPresent(note -> err.println("racelab: " + note));
        return output;
    }

    /** {@code --force} alone: it says what to do with an output the command was not asked to write. */
    static void forceNeeds(String option, Object given, boolean force) throws UsageException {
        if (force && given == null) {
            throw new UsageException("--force goes with " + option + ": it lets " + option
                    + " replace a file that exists");
        }
    }

    /** The folder {@code option} names, made if it is not there; refused if something else is there. */
    static void folder(String option, Path dir) throws UsageException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UsageException(option + " " + dir + ": that is not a folder");
        }
        try {
            if (!Files.isDirectory(dir)) {
                // (A link to a folder is a folder here: createDirectories would take it for a file in the way.)
                Files.createDirectories(dir);
            }
        } catch (IOException e) {
            throw new UsageException(option + " " + dir + ": cannot make that folder (" + OutputFile.reason(e,
                    dir.toAbsolutePath().getParent()) + ")");
        }
    }
}
