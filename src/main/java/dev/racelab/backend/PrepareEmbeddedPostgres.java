package dev.racelab.backend;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Run by the build (Maven's {@code process-classes}), never by RaceLab: prepares the embedded
 * PostgreSQL of the platform the build runs on ({@link PreparedPostgres}) into the folder it is given.
 * <ol>
 *   <li>zonky's xz archive, repacked entry by entry as a gzip tarball (the same files, modes and links);
 *   <li>a cluster, made by that archive's {@code initdb} (as root through {@code unshare -U}, as zonky
 *       runs it: PostgreSQL refuses to run as root), packed as a gzip tarball of the data directory;
 *   <li>the identity line, written last.
 * </ol>
 * Nothing is done when the folder already holds what zonky's archive of this build would make. A
 * cluster that cannot be made here is left out with a warning (a first start then runs {@code
 * initdb}); binaries that cannot be repacked fail the build.
 */
public final class PrepareEmbeddedPostgres {

    private static final long INITDB_WITHIN_SECONDS = 300;

    private PrepareEmbeddedPostgres() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: PrepareEmbeddedPostgres OUTPUT-FOLDER");
        }
        Path out = Path.of(args[0]);
        String platform = PreparedPostgres.platform(PostgresBinaries.system(), PostgresBinaries.architecture());
        byte[] packaged = PostgresBinaries.zonkyArchive(PostgresBinaries.system(), PostgresBinaries.architecture());
        byte[] identity = PreparedPostgres.identityOf(PostgresBinaries.md5(packaged));
        Path id = out.resolve(PreparedPostgres.fileName(platform, PreparedPostgres.ID));
        Path binaries = out.resolve(PreparedPostgres.fileName(platform, PreparedPostgres.BINARIES));
        Path cluster = out.resolve(PreparedPostgres.fileName(platform, PreparedPostgres.CLUSTER));
        if (Files.isRegularFile(binaries) && Files.exists(id) && Arrays.equals(Files.readAllBytes(id), identity)) {
            System.out.println("Embedded PostgreSQL for " + platform + " already prepared in " + out);
            return;
        }
        Files.createDirectories(out);
        Files.deleteIfExists(id);
        Files.deleteIfExists(cluster);
        long started = System.nanoTime();
        repack(packaged, binaries);
        Path work = Files.createTempDirectory("racelab-prepare-");
        try {
            makeCluster(binaries, work, cluster);
        } finally {
            PostgresBinaries.deleteRecursively(work);
        }
        Files.write(id, identity);
        System.out.printf("Embedded PostgreSQL for %s prepared in %s (%d ms): binaries %,d bytes, cluster %s%n",
                platform, out, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), Files.size(binaries),
                Files.exists(cluster) ? String.format("%,d bytes", Files.size(cluster)) : "none");
    }

    /** zonky's archive as a gzip tarball, written whole or not at all. */
    private static void repack(byte[] packaged, Path binaries) throws IOException {
        Path partial = binaries.resolveSibling(binaries.getFileName() + ".part");
        try (TarArchiveInputStream in = PostgresBinaries.xzEntries(packaged);
             TarArchiveOutputStream tar = gzipTar(Files.newOutputStream(partial))) {
            for (TarArchiveEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                // libarchive's own headers (creation times) make GNU tar warn once per file.
                entry.clearExtraPaxHeaders();
                tar.putArchiveEntry(entry);
                if (entry.isFile() && !entry.isLink() && !entry.isSymbolicLink()) {
                    in.transferTo(tar);
                }
                tar.closeArchiveEntry();
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        Files.move(partial, binaries, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Unpacks the repacked binaries, runs their initdb, packs the data directory; warns and leaves none on failure. */
    private static void makeCluster(Path binaries, Path work, Path cluster) throws IOException, InterruptedException {
        Path bin = work.resolve("bin");
        Path data = work.resolve("data");
        Files.createDirectories(bin);
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(
                Files.newInputStream(binaries), 1 << 16))) {
            PostgresBinaries.unpackAll(tar, bin, () -> false);
        } catch (CalledOff impossible) {
            throw new IllegalStateException(impossible);
        }
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("unshare", "-U"));
        }
        command.add(bin.resolve("bin/initdb").toString());
        command.addAll(List.of(PreparedPostgres.INITDB_OPTIONS));
        command.addAll(List.of("--no-sync", "-D", data.toString()));
        Path log = work.resolve("initdb.log");
        Process initdb;
        try {
            initdb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            System.out.println("WARNING: no prepared PostgreSQL cluster (a first start runs initdb): " + e.getMessage());
            return;
        }
        if (!initdb.waitFor(INITDB_WITHIN_SECONDS, TimeUnit.SECONDS)) {
            initdb.destroyForcibly();
            System.out.println("WARNING: no prepared PostgreSQL cluster: initdb took over " + INITDB_WITHIN_SECONDS + " s");
            return;
        }
        if (initdb.exitValue() != 0) {
            System.out.println("WARNING: no prepared PostgreSQL cluster (a first start runs initdb): initdb failed:\n"
                    + Files.readString(log).strip());
            return;
        }
        pack(data, cluster);
    }

    /** The contents of {@code data} as a gzip tarball, names relative to it, written whole or not at all. */
    private static void pack(Path data, Path cluster) throws IOException {
        Path partial = cluster.resolveSibling(cluster.getFileName() + ".part");
        try (TarArchiveOutputStream tar = gzipTar(Files.newOutputStream(partial));
             Stream<Path> all = Files.walk(data)) {
            for (Path path : all.sorted().filter(p -> !p.equals(data)).toList()) {
                TarArchiveEntry entry = new TarArchiveEntry(path.toFile(), data.relativize(path).toString());
                entry.setMode(Files.isDirectory(path) ? 040700 : 0100600);
                tar.putArchiveEntry(entry);
                if (Files.isRegularFile(path)) {
                    Files.copy(path, tar);
                }
                tar.closeArchiveEntry();
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        Files.move(partial, cluster, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static TarArchiveOutputStream gzipTar(OutputStream file) throws IOException {
        OutputStream gzip = new GZIPOutputStream(new BufferedOutputStream(file, 1 << 16), 1 << 16);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(gzip);
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        return tar;
    }
}
