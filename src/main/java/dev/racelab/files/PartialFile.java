package dev.racelab.files;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The file an {@link OutputFile} is written to before it moves into place whole: hidden beside its
 * place ({@code .NAME.<random>.part}), made new ({@code CREATE_NEW}: never an existing file, never
 * through a link), so the move is a rename on the same file system. Made with the permissions any
 * new file of the user gets (the umask's), since it becomes the user's file; when it replaces one,
 * it takes that file's permissions.
 *
 * <p>A partial file is either committed (moved into place) or removed: on a failure, on
 * {@link #close} without a commit, and on {@link #abandonAll}, which whoever ends the process early
 * (a signal's shutdown hook) calls once it will commit nothing more. Written by one thread;
 * {@link #commit} and removal hold the file's lock, so a file is never removed half-way through
 * its move, nor moved after it was removed.
 */
public final class PartialFile implements AutoCloseable {

    /**
     * Every partial file of this process not yet committed or removed: the process's, since a
     * signal ends the process whoever made them.
     */
    private static final Set<PartialFile> UNFINISHED = ConcurrentHashMap.newKeySet();

    private final OutputFile output;
    private final Path path;
    private final FileChannel channel;
    /** Committed or removed; and which: guarded by this. */
    private boolean finished;
    private boolean committed;

    private PartialFile(OutputFile output, Path path, FileChannel channel) {
        this.output = output;
        this.path = path;
        this.channel = channel;
    }

    static PartialFile beside(OutputFile output) throws OutputFile.Failed {
        Path path = null;
        try {
            path = create(output.place());
            PartialFile partial = new PartialFile(output, path, FileChannel.open(path, StandardOpenOption.WRITE));
            UNFINISHED.add(partial);
            return partial;
        } catch (IOException e) {
            deleteQuietly(path);
            throw output.failed(e);
        }
    }

    /** Proves that {@code place}'s folder takes a new file: makes one beside it and removes it. */
    static void probe(Path place) throws IOException {
        Files.delete(create(place));
    }

    private static Path create(Path place) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path candidate = place.resolveSibling("." + place.getFileName() + "."
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

    /** Where to write the file's bytes; closing it closes the file, which only {@link #commit} should do. */
    public OutputStream stream() {
        return Channels.newOutputStream(channel);
    }

    /**
     * Flushes the file to the disk and moves it into place in one step, after judging the place
     * again: a regular file there is replaced only if the user asked, anything else never. On any
     * failure the partial file is removed and the place left as it was.
     */
    public synchronized void commit() throws OutputFile.Failed {
        if (finished) {
            throw output.failed("it was stopped before it was complete", null);
        }
        try {
            channel.force(true);
            channel.close();
            Path place = output.place();
            BasicFileAttributes there = attributes(place);
            if (there == null) {
                moveNew(place);
            } else if (!there.isRegularFile()) {
                throw output.failed("that is now " + FileKind.of(place, LinkOption.NOFOLLOW_LINKS)
                        + ", not a regular file", null);
            } else if (!output.replaces()) {
                throw output.failed("it exists already", place);
            } else {
                keepPermissions(place);
                try {
                    Files.move(path, place, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(path, place, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            finished = true;
            committed = true;
            UNFINISHED.remove(this);
        } catch (IOException e) {
            throw output.failed(e);
        } finally {
            if (!finished) {
                remove();
            }
        }
    }

    /**
     * Into a place where nothing was a moment ago, replacing nothing: a hard link fails if
     * anything is there by now, in one step; where the file system has no hard links, a move
     * that refuses an existing file.
     */
    private void moveNew(Path place) throws IOException, OutputFile.Failed {
        try {
            Files.createLink(place, path);
        } catch (FileAlreadyExistsException e) {
            throw output.failed("something else was put there meanwhile", null);
        } catch (UnsupportedOperationException | FileSystemException noHardLinks) {
            try {
                Files.move(path, place);
            } catch (FileAlreadyExistsException e) {
                throw output.failed("something else was put there meanwhile", null);
            }
            return;
        }
        // In place now; a second name of ours that will not go is the worst that can happen.
        deleteQuietly(path);
    }

    private void keepPermissions(Path place) {
        try {
            Files.setPosixFilePermissions(path, Files.getPosixFilePermissions(place, LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | UnsupportedOperationException e) {
            // Not a POSIX file system, or not ours to read: the new file keeps the umask's.
        }
    }

    private static BasicFileAttributes attributes(Path place) throws IOException {
        try {
            return Files.readAttributes(place, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    /** Without a commit: removes the partial file; the place stays as it was. */
    @Override
    public synchronized void close() {
        if (!finished) {
            remove();
        }
    }

    /** Whether it was removed without a commit. */
    synchronized boolean removed() {
        return finished && !committed;
    }

    /** Removes every partial file of this process not yet committed: for a process about to end. */
    public static void abandonAll() {
        for (PartialFile partial : UNFINISHED) {
            partial.close();
        }
    }

    /** Called holding the lock. */
    private void remove() {
        finished = true;
        UNFINISHED.remove(this);
        try {
            channel.close();
        } catch (IOException ignored) {
            // Removing it anyway.
        }
        deleteQuietly(path);
    }

    private static void deleteQuietly(Path path) {
        if (path == null) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // A stray hidden file in the user's folder is the worst that can happen.
        }
    }
}
