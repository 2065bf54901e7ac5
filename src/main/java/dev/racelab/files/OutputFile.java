package dev.racelab.files;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Whether RaceLab may write the file a user named, and where the bytes land. Every file RaceLab
 * writes at a user's word (a recording, an export, a transcript, from the command line or the
 * window) is decided here and written through a {@link PartialFile}.
 *
 * <p>The rule: RaceLab writes only regular files.
 * <ul>
 *   <li>A name where nothing is: a new file. Its folder must exist and take a new file, which
 *       {@link #check} proves by making (and removing) one there, before any work starts.</li>
 *   <li>A regular file: replaced only when the user asked ({@code replace}: {@code --force}, or
 *       the window's question), keeping its permissions.</li>
 *   <li>A folder, a FIFO, a device, a socket: refused, named.</li>
 *   <li>A symbolic link: refused unless it leads to a regular file and the user asked to replace
 *       it; then that file is written (its real path, {@link #place}), the link stays, and
 *       {@link #note} says so. A link to nothing, or to anything but a regular file, is refused.</li>
 * </ul>
 * The folders on the way to the name are the user's to choose, links or not; only the name itself
 * is judged. What is there is read without following links, and judged again just before the
 * finished file moves into place ({@link PartialFile#commit}), so nothing that appeared meanwhile
 * is replaced unasked.
 */
public final class OutputFile {

    /** What writes the file's bytes. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /** A file that was not written: the message names it as the user gave it, then why. */
    public static final class Failed extends Exception {

        private final String reason;
        private final transient Path existing;

        Failed(Path named, String reason, Path existing, Throwable cause) {
            super("cannot write " + named + ": " + reason, cause);
            this.reason = reason;
            this.existing = existing;
        }

        /** Why, without the file's name: "that is a FIFO (a named pipe), not a regular file". */
        public String reason() {
            return reason;
        }

        /**
         * The regular file in the way, when that is all that is wrong: replacing it is the user's
         * call ({@code --force}, the window's question). For a link, the file it leads to.
         */
        public Optional<Path> existing() {
            return Optional.ofNullable(existing);
        }
    }

    private final Path named;
    private final Path place;
    private final boolean replace;
    private final Path link;

    private OutputFile(Path named, Path place, boolean replace, Path link) {
        this.named = named;
        this.place = place;
        this.replace = replace;
        this.link = link;
    }

    /**
     * Whether {@code named} may be written, {@code replace} saying whether the user asked to replace
     * a regular file there. Fails, naming it and why, if it may not, having changed nothing.
     */
    public static OutputFile check(Path named, boolean replace) throws Failed {
        Path absolute = named.toAbsolutePath();
        Path folder = absolute.getParent();
        if (folder == null) {
            throw new Failed(named, "that is a folder, not a file", null, null);
        }
        if (!Files.exists(folder)) {
            // Files.exists is false too where a folder on the way may not be searched.
            throw new Failed(named, Files.notExists(folder) ? "the folder " + folder + " does not exist"
                    : "the folder " + folder + " cannot be reached (permission denied on the way)", null, null);
        }
        if (!Files.isDirectory(folder)) {
            throw new Failed(named, folder + " is not a folder", null, null);
        }
        OutputFile output = judge(named, absolute, replace);
        try {
            PartialFile.probe(output.place);
        } catch (IOException e) {
            throw new Failed(named, reason(e, output.place.getParent()), null, e);
        }
        return output;
    }

    private static OutputFile judge(Path named, Path absolute, boolean replace) throws Failed {
        BasicFileAttributes there = attributes(absolute, LinkOption.NOFOLLOW_LINKS);
        if (there == null) {
            return new OutputFile(named, absolute, replace, null);
        }
        if (there.isRegularFile()) {
            if (!replace) {
                throw new Failed(named, "it exists already", absolute, null);
            }
            return new OutputFile(named, absolute, true, null);
        }
        if (!there.isSymbolicLink()) {
            String kind = FileKind.of(absolute, LinkOption.NOFOLLOW_LINKS);
            throw new Failed(named, "that is " + kind + ", not " + (there.isDirectory() ? "a file" : "a regular file"),
                    null, null);
        }
        String leadsTo = "it is a symbolic link to " + linkText(absolute);
        if (throughProc(absolute)) {
            throw new Failed(named, leadsTo + ", which is a process's open file (/proc), not a file to replace", null,
                    null);
        }
        BasicFileAttributes end = attributes(absolute);
        if (end == null) {
            throw new Failed(named, leadsTo + ", which does not exist (name the file itself to write it)", null, null);
        }
        if (!end.isRegularFile()) {
            throw new Failed(named, leadsTo + ", which is " + FileKind.of(absolute) + ", not a regular file", null,
                    null);
        }
        Path real;
        try {
            real = absolute.toRealPath();
        } catch (IOException e) {
            throw new Failed(named, leadsTo + ", which leads to no file RaceLab can name", null, e);
        }
        if (!replace) {
            throw new Failed(named, leadsTo + ", a file that exists", real, null);
        }
        return new OutputFile(named, real, true, absolute);
    }

    /** The file's attributes, following links; null when nothing is there or the links lead nowhere. */
    private static BasicFileAttributes attributes(Path path, LinkOption... options) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, options);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Whether the links from {@code link} pass through {@code /proc} ({@code /proc/self/fd/1},
     * {@code /dev/stdout}): what they lead to is whatever a process has open, its output perhaps,
     * which a file moved over its name would cut off. Each hop's folder is read as it really is.
     */
    private static boolean throughProc(Path link) {
        Path proc = Path.of("/proc");
        Path at = link;
        for (int hop = 0; hop < 40 && Files.isSymbolicLink(at); hop++) {
            try {
                Path folder = at.getParent().toRealPath();
                if (folder.startsWith(proc)) {
                    return true;
                }
                at = folder.resolve(Files.readSymbolicLink(at));
            } catch (IOException e) {
                return false;
            }
            if (at.normalize().startsWith(proc)) {
                return true;
            }
        }
        return false;
    }

    private static String linkText(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException e) {
            return "somewhere it cannot read";
        }
    }

    /** The name as the user gave it. */
    public Path named() {
        return named;
    }

    /** Where the bytes land: the name made absolute, or the real path of the file a link leads to. */
    public Path place() {
        return place;
    }

    /** Whether a regular file at {@link #place} may be replaced. */
    boolean replaces() {
        return replace;
    }

    /** When the name is a link written through, the sentence that says so; else empty. */
    public Optional<String> note() {
        return link == null ? Optional.empty()
                : Optional.of(named + " is a symbolic link: writing " + place + " (the link stays)");
    }

    /** A new, empty temporary file beside {@link #place}, to write and then {@link PartialFile#commit}. */
    public PartialFile start() throws Failed {
        return PartialFile.beside(this);
    }

    /** Writes the file whole: into a {@link PartialFile}, moved into place once complete. Returns the place. */
    public Path write(Content content) throws Failed {
        try (PartialFile partial = start()) {
            try {
                content.writeTo(partial.stream());
            } catch (IOException e) {
                // Removed meanwhile (a signal, PartialFile.abandonAll): that, not the closed file, is why.
                throw partial.removed() ? failed("it was stopped before it was complete", null) : failed(e);
            }
            partial.commit();
        }
        return place;
    }

    /** {@code e}, met writing this file, as a failure naming the file as the user gave it. */
    Failed failed(IOException e) {
        return new Failed(named, reason(e, place.getParent()), null, e);
    }

    Failed failed(String reason, Path existing) {
        return new Failed(named, reason, existing, null);
    }

    /**
     * Why {@code e} happened, without the file it names: that is often the hidden temporary file,
     * and the user knows only the name the message gives already.
     */
    public static String reason(IOException e, Path folder) {
        if (e instanceof AccessDeniedException) {
            return "permission denied in " + folder;
        }
        if (e instanceof NoSuchFileException) {
            return "no file can be made in " + folder;
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
