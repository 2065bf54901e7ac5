package dev.racelab.backend;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * RaceLab's unpacked copy of the PostgreSQL binaries, under {@code <home>/postgres/bin/PG-<md5>},
 * unpacked by RaceLab ({@link #unpackIfMissing}) and checked before every start. The binaries are
 * those the build prepared ({@link PreparedPostgres}, a gzip tarball; the directory is named by the
 * MD5 of their identity line) or, for a build that prepared none, zonky's own archive (xz; named by
 * the archive's MD5, as zonky names it). zonky is given the same bytes to name the directory by
 * ({@link #resolver}), finds it unpacked and marked, and never unpacks anything itself.
 *
 * <p>Why RaceLab checks them itself: zonky marks an unpack with {@code .exists} and never looks
 * at the files again, so a truncated {@code postgres} (a full disk, a file damaged later) would stay
 * truncated for good. RaceLab keeps its own list: the list of an unpack's files and sizes is
 * written beside the directory ({@code PG-<md5>.files}, whole or not at all) once the unpack is
 * whole, or, for an unpack without one, once it was checked against the archive entry by entry.
 * Each start compares the directory with the list, a file status per file; a directory that
 * differs from its list, or that has none and does not match the archive, is removed whole and
 * unpacked anew. A size check finds what goes wrong in practice (an unpack cut short, a
 * full disk); it does not find a file altered in place to the same size.
 */
final class PostgresBinaries {

    /** Reads an archive's entries from its start. */
    @FunctionalInterface
    private interface Archive {
        TarArchiveInputStream entries() throws IOException;
    }

    private final Path bin;
    private final Archive archive;
    private final byte[] named;
    private final Optional<PreparedPostgres> prepared;
    private final Path unpacked;
    private final Path list;

    private PostgresBinaries(Path bin, Archive archive, byte[] named, Optional<PreparedPostgres> prepared)
            throws IOException {
        this.bin = bin;
        this.archive = archive;
        this.named = named;
        this.prepared = prepared;
        String digest = md5(named);
        this.unpacked = bin.resolve("PG-" + digest);
        this.list = bin.resolve("PG-" + digest + ".files");
    }

    /** The binaries to unpack under {@code bin} on this machine: the build's, else zonky's archive (read whole). */
    static PostgresBinaries under(Path bin) throws IOException {
        Optional<PreparedPostgres> prepared = PreparedPostgres.forThisPlatform();
        if (prepared.isPresent()) {
            PreparedPostgres binaries = prepared.get();
            return new PostgresBinaries(bin, () -> new TarArchiveInputStream(
                    new GZIPInputStream(binaries.binaries(), 1 << 16)), binaries.identity(), prepared);
        }
        byte[] packaged = zonkyArchive(system(), architecture());
        return new PostgresBinaries(bin, () -> xzEntries(packaged), packaged, prepared);
    }

    /** What the build prepared beside these binaries (their cluster), if they are the build's. */
    Optional<PreparedPostgres> prepared() {
        return prepared;
    }

    /** zonky's archive of the binaries for a platform, whole. */
    static byte[] zonkyArchive(String system, String architecture) throws IOException {
        try (InputStream packaged = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, architecture)) {
            return packaged.readAllBytes();
        }
    }

    /** The entries of an xz tarball, zonky's format. */
    static TarArchiveInputStream xzEntries(byte[] packaged) throws IOException {
        return new TarArchiveInputStream(new XZInputStream(new BufferedInputStream(new ByteArrayInputStream(packaged))));
    }

    static String md5(byte[] bytes) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IOException("this Java has no MD5 to name the PostgreSQL binaries by", e);
        }
    }

    /** What zonky is to find the binaries by: the bytes their directory is named after (see the class comment). */
    PgBinaryResolver resolver() {
        return (system, architecture) -> new ByteArrayInputStream(named);
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
     * Unpacks the archive unless its unpack is there (after {@link #removeIfDamaged}, one that is
     * there is whole): entry by entry into a hidden directory beside {@code PG-<md5>}, moved into
     * place once whole and marked as zonky marks its own ({@code .exists}, so zonky takes it as
     * unpacked), then its list is written. RaceLab unpacks rather than zonky so that a start can
     * be called off between two entries (zonky's unpack takes seconds and cannot be stopped), and
     * so that the unpack is checked as it is made, not read from the archive a second time.
     *
     * @param calledOff asked between entries; when it says yes, the partial unpack is removed
     * @throws CalledOff if {@code calledOff} said yes
     */
    void unpackIfMissing(BooleanSupplier calledOff) throws IOException, CalledOff {
        Files.createDirectories(bin);
        try (Stream<Path> leftovers = Files.list(bin)) {
            // Hidden unpacks that a RaceLab killed mid-way left; the caller holds the unpack lock.
            for (Path partial : leftovers.filter(p -> p.getFileName().toString().startsWith(".unpacking-")).toList()) {
                deleteRecursively(partial);
            }
        }
        if (Files.isDirectory(unpacked)) {
            return;
        }
        Path partial = Files.createTempDirectory(bin, ".unpacking-");
        List<String> files;
        try {
            try (TarArchiveInputStream tar = archive.entries()) {
                files = unpackAll(tar, partial, calledOff);
            }
            Files.createFile(partial.resolve(".exists"));
            Files.move(partial, unpacked, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            if (Files.exists(partial)) {
                deleteRecursively(partial);
            }
        }
        writeList(files);
    }

    /**
     * Every entry of {@code tar} under {@code into}, asking {@code calledOff} before each.
     *
     * @return the regular files as list lines ({@code size TAB name})
     */
    static List<String> unpackAll(TarArchiveInputStream tar, Path into, BooleanSupplier calledOff)
            throws IOException, CalledOff {
        List<String> files = new ArrayList<>();
        boolean posix = into.getFileSystem().supportedFileAttributeViews().contains("posix");
        Path made = into;
        for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
            if (calledOff.getAsBoolean()) {
                throw new CalledOff();
            }
            made = unpack(tar, entry, into, made, posix);
            if (entry.isFile() && !entry.isSymbolicLink() && !entry.isLink()) {
                files.add(entry.getSize() + "\t" + entry.getName());
            }
        }
        return files;
    }

    /**
     * One entry of the archive under {@code into}: a directory, a file with its mode, or a link.
     * A file is made with its mode (no second call to set it), in a folder made unless it is the
     * one the entry before was put in ({@code made}, returned for the next): a first start
     * unpacks a few thousand files, and each call is a system call or two.
     */
    private static Path unpack(TarArchiveInputStream tar, TarArchiveEntry entry, Path into, Path made, boolean posix)
            throws IOException {
        Path target = into.resolve(entry.getName()).normalize();
        if (!target.startsWith(into)) {
            throw new IOException("the PostgreSQL archive names a file outside its folder: " + entry.getName());
        }
        if (entry.isDirectory()) {
            Files.createDirectories(target);
            return target;
        }
        Path folder = target.getParent();
        if (!folder.equals(made)) {
            Files.createDirectories(folder);
        }
        if (entry.isSymbolicLink()) {
            Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
        } else if (entry.isLink()) {
            Files.createLink(target, into.resolve(entry.getLinkName()));
        } else if (entry.isFile()) {
            if (posix) {
                try (OutputStream file = Channels.newOutputStream(Files.newByteChannel(target, Set.of(CREATE_NEW, WRITE),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                                mode(entry.getMode() & 0755)))))) {
                    tar.transferTo(file);
                }
            } else {
                Files.copy(tar, target);
                if ((entry.getMode() & 0100) != 0 && !target.toFile().setExecutable(true)) {
                    throw new IOException("cannot make " + target + " executable");
                }
            }
        }
        return folder;
    }

    /** {@code 0755} as {@code rwxr-xr-x}. */
    private static String mode(int bits) {
        StringBuilder text = new StringBuilder();
        for (int shift = 6; shift >= 0; shift -= 3) {
            text.append((bits >> shift & 4) != 0 ? 'r' : '-').append((bits >> shift & 2) != 0 ? 'w' : '-')
                    .append((bits >> shift & 1) != 0 ? 'x' : '-');
        }
        return text.toString();
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
        try (TarArchiveInputStream tar = archive.entries()) {
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
    static String system() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        return os.contains("win") ? "Windows" : os.contains("mac") ? "Darwin" : "Linux";
    }

    /** As zonky names the architecture: amd64 is x86_64. */
    static String architecture() {
        String arch = System.getProperty("os.arch", "");
        return "amd64".equals(arch) ? "x86_64" : arch;
    }
}
