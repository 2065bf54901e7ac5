package dev.racelab.backend;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * RaceLab's unpacked copy of the PostgreSQL binaries zonky packages, under {@code
 * <home>/postgres/bin/PG-<md5 of the archive>}, checked before every start.
 *
 * <p>Why RaceLab checks them itself: zonky unpacks the archive once and marks the directory with
 * {@code .exists}; it never looks at the files again, and when it unpacks over an unpack that was
 * interrupted it skips every file already there, cut short or not. So a truncated {@code
 * postgres} stays truncated for good. RaceLab keeps its own list: once an unpack was checked
 * against the archive, entry by entry (every file there with its size, every link), the list of
 * files and sizes is written beside the directory ({@code PG-<md5>.files}, whole or not at all).
 * Each start compares the directory with the list, a file status per file; a directory that
 * differs from its list, or that has none and does not match the archive, is removed whole, so
 * zonky unpacks it anew. A size check finds what goes wrong in practice (an unpack cut short, a
 * full disk); it does not find a file altered in place to the same size.
 */
final class PostgresBinaries {

    private final Path bin;
    private final byte[] archive;
    private final Path unpacked;
    private final Path list;

    private PostgresBinaries(Path bin, byte[] archive, String digest) {
        this.bin = bin;
        this.archive = archive;
        this.unpacked = bin.resolve("PG-" + digest);
        this.list = bin.resolve("PG-" + digest + ".files");
    }

    /** The binaries zonky would unpack under {@code bin} on this machine (reads the packaged archive). */
    static PostgresBinaries under(Path bin) throws IOException {
        try (InputStream packaged = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system(), architecture());
             DigestInputStream digesting = new DigestInputStream(packaged, MessageDigest.getInstance("MD5"))) {
            byte[] archive = digesting.readAllBytes();
            return new PostgresBinaries(bin, archive, HexFormat.of().formatHex(digesting.getMessageDigest().digest()));
        } catch (NoSuchAlgorithmException e) {
            throw new IOException("this Java has no MD5 to name the PostgreSQL binaries by", e);
        }
    }

    /** The directory zonky unpacks into: {@code PG-<md5>}. */
    Path unpacked() {
        return unpacked;
    }

    /**
     * Before a start: removes an unpack that differs from its list, or that has no list and does
     * not match the archive, so that zonky unpacks it again.
     *
     * @return what to tell the user, if something was removed
     */
    Optional<String> removeIfDamaged() throws IOException {
        if (!Files.isDirectory(unpacked)) {
            Files.deleteIfExists(list);
            return Optional.empty();
        }
        List<String> files = new ArrayList<>();
        Optional<String> damage = Files.exists(list) ? differenceFromList() : differenceFromArchive(files);
        if (damage.isEmpty()) {
            if (!Files.exists(list)) {
                writeList(files);
            }
            return Optional.empty();
        }
        Files.deleteIfExists(list);
        deleteRecursively(unpacked);
        return Optional.of("The embedded PostgreSQL binaries under " + unpacked + " were damaged (" + damage.get()
                + "); they were unpacked again");
    }

    /**
     * After a start that unpacked them: checks the fresh unpack against the archive and keeps its
     * list. A damaged one is left for the next start to remove (the server runs from it now),
     * and so is one that could not be checked.
     */
    void recordIfUnchecked() {
        try {
            List<String> files = new ArrayList<>();
            if (Files.isDirectory(unpacked) && !Files.exists(list) && differenceFromArchive(files).isEmpty()) {
                writeList(files);
            }
        } catch (IOException | RuntimeException unchecked) {
            // Without a list, the next start checks the unpack against the archive again.
        }
    }

    private Optional<String> differenceFromList() throws IOException {
        for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
            int tab = line.indexOf('\t');
            if (tab < 0) {
                return Optional.of("its list " + list + " is unreadable");
            }
            long size = Long.parseLong(line.substring(0, tab));
            Optional<String> damage = differenceOf(line.substring(tab + 1), size);
            if (damage.isPresent()) {
                return damage;
            }
        }
        return Optional.empty();
    }

    /**
     * Compares the unpack with the archive, entry by entry, and adds each regular file to {@code
     * files} as its list line ({@code size TAB name}) on the way: one pass over the archive both
     * checks the unpack and makes its list (decompressing it takes seconds on a small machine).
     */
    private Optional<String> differenceFromArchive(List<String> files) throws IOException {
        try (TarArchiveInputStream tar = entries()) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                Path file = unpacked.resolve(entry.getName());
                if (entry.isSymbolicLink() || entry.isLink()) {
                    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                        return Optional.of(entry.getName() + " is missing");
                    }
                } else if (entry.isFile()) {
                    Optional<String> damage = differenceOf(entry.getName(), entry.getSize());
                    if (damage.isPresent()) {
                        return damage;
                    }
                    files.add(entry.getSize() + "\t" + entry.getName());
                }
            }
        }
        return Optional.empty();
    }

    private Optional<String> differenceOf(String name, long expected) throws IOException {
        Path file = unpacked.resolve(name);
        if (!Files.isRegularFile(file)) {
            return Optional.of(name + " is missing");
        }
        long size = Files.size(file);
        return size == expected ? Optional.empty()
                : Optional.of(name + " is " + size + " bytes, " + expected + " expected");
    }

    /** The archive's regular files and their sizes, one per line ({@code size TAB name}), written whole. */
    private void writeList(List<String> lines) throws IOException {
        Path partial = Files.createTempFile(bin, list.getFileName().toString(), ".part");
        try {
            Files.write(partial, lines, StandardCharsets.UTF_8);
            Files.move(partial, list, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    private TarArchiveInputStream entries() throws IOException {
        return new TarArchiveInputStream(new XZInputStream(new BufferedInputStream(
                new ByteArrayInputStream(archive))));
    }

    /** Removes {@code dir} and everything under it; RaceLab's own directories only. */
    static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** As zonky names the system: Linux, Darwin, Windows. */
    private static String system() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        return os.contains("win") ? "Windows" : os.contains("mac") ? "Darwin" : "Linux";
    }

    /** As zonky names the architecture: amd64 is x86_64. */
    private static String architecture() {
        String arch = System.getProperty("os.arch", "");
        return "amd64".equals(arch) ? "x86_64" : arch;
    }
}
