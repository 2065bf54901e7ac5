package dev.racelab.backend;

import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * PostgreSQL as RaceLab's build prepared it for this platform ({@link PrepareEmbeddedPostgres}):
 * zonky's binaries repacked as a gzip tarball, which Java inflates natively, several times faster
 * than it decodes zonky's xz; and a cluster that {@code initdb} made from those binaries at build
 * time, so that a first start copies a few MB of files rather than running {@code initdb}, which
 * takes seconds on a busy machine. A cluster is the same files for every user of a platform: made
 * with trust authentication for {@code postgres}, UTF-8 and the C locale, which every system has.
 *
 * <p>Three resources beside this class, under {@code prepared/}, named by platform: the binaries,
 * the cluster, and their identity (a line of text naming zonky's archive they were made from,
 * written last by the build). A build that could not make the cluster leaves it out, and the start
 * runs {@code initdb} (as it does when told to, {@link #initdbWanted}); a build for which nothing was prepared leaves all three out, and the start
 * unpacks zonky's archive.
 */
final class PreparedPostgres {

    /** The C locale: present on every system, so a cluster made at build time starts anywhere. */
    static final String LOCALE = "C";
    /** What {@code initdb} is given, at build time and when a start makes a cluster itself. */
    static final String[] INITDB_OPTIONS = {"-A", "trust", "-U", "postgres", "-E", "UTF-8", "--locale=" + LOCALE};

    private final String platform;
    private final byte[] identity;

    private PreparedPostgres(String platform, byte[] identity) {
        this.platform = platform;
        this.identity = identity;
    }

    /** What the build prepared for this platform, if anything. */
    static Optional<PreparedPostgres> forThisPlatform() throws IOException {
        String platform = platform(PostgresBinaries.system(), PostgresBinaries.architecture());
        try (InputStream id = PreparedPostgres.class.getResourceAsStream(resource(platform, ID))) {
            return id == null ? Optional.empty() : Optional.of(new PreparedPostgres(platform, id.readAllBytes()));
        }
    }

    /** The identity's bytes: the unpacked binaries' directory is named by their MD5, as zonky names its own. */
    byte[] identity() {
        return identity.clone();
    }

    /** The binaries, a gzip tarball laid out as zonky's archive. */
    InputStream binaries() throws IOException {
        return open(BINARIES);
    }

    /** The cluster, a gzip tarball of a data directory's contents, if the build made one. */
    Optional<InputStream> cluster() {
        return Optional.ofNullable(PreparedPostgres.class.getResourceAsStream(resource(platform, CLUSTER)));
    }

    /**
     * Puts the prepared cluster in {@code data}, which holds none (no {@code PG_VERSION}; whatever
     * is there is removed): unpacked into a hidden folder beside it, private to this user as
     * PostgreSQL requires, and moved into place whole, so that a start cut short leaves no half
     * cluster. Hidden folders a killed start left are removed first (the caller holds the slot).
     *
     * @return false if the build made no cluster (then {@code initdb} makes one)
     * @throws CalledOff if {@code calledOff} said yes between two files
     */
    boolean copyClusterTo(Path data, BooleanSupplier calledOff) throws IOException, CalledOff {
        Optional<InputStream> packed = initdbWanted() ? Optional.empty() : cluster();
        if (packed.isEmpty()) {
            return false;
        }
        Path slot = data.getParent();
        try (Stream<Path> leftovers = Files.list(slot)) {
            for (Path partial : leftovers.filter(p -> p.getFileName().toString().startsWith(".cluster-")).toList()) {
                PostgresBinaries.deleteRecursively(partial);
            }
        }
        // A new temporary folder is rwx------ where permissions are POSIX: as PostgreSQL wants its data.
        Path partial = Files.createTempDirectory(slot, ".cluster-");
        try {
            try (TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(packed.get(), 1 << 16))) {
                PostgresBinaries.unpackAll(tar, partial, calledOff);
            }
            if (Files.exists(data)) {
                PostgresBinaries.deleteRecursively(data);
            }
            Files.move(partial, data, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            if (Files.exists(partial)) {
                PostgresBinaries.deleteRecursively(partial);
            }
        }
        return true;
    }

    /**
     * Whether a new cluster is to be made by {@code initdb} even though the build prepared one:
     * {@code RACELAB_POSTGRES_INITDB=yes} (or the property {@code racelab.postgres.initdb=yes}). For
     * the tests of that path, which builds without a prepared cluster take, and for a system where
     * the prepared cluster would not do.
     */
    private static boolean initdbWanted() {
        return "yes".equals(System.getProperty("racelab.postgres.initdb", System.getenv("RACELAB_POSTGRES_INITDB")));
    }

    private InputStream open(String kind) throws IOException {
        InputStream in = PreparedPostgres.class.getResourceAsStream(resource(platform, kind));
        if (in == null) {
            throw new IOException("RaceLab's prepared PostgreSQL " + kind + " is missing from its jar ("
                    + resource(platform, kind) + ")");
        }
        return in;
    }

    static final String BINARIES = "binaries";
    static final String CLUSTER = "cluster";
    static final String ID = "id";

    /** A platform as zonky names it, lower case: {@code linux-x86_64}. */
    static String platform(String system, String architecture) {
        return (system + "-" + architecture).toLowerCase(Locale.ROOT);
    }

    /** The file name of one of the three, relative to the {@code prepared} folder. */
    static String fileName(String platform, String kind) {
        return "postgres-" + platform + "-" + kind + (kind.equals(ID) ? ".txt" : ".tar.gz");
    }

    private static String resource(String platform, String kind) {
        return "prepared/" + fileName(platform, kind);
    }

    /** The identity line the build writes: the MD5 of zonky's archive the binaries come from. */
    static byte[] identityOf(String sourceDigest) {
        return ("racelab prepared postgres 1 from zonky archive md5 " + sourceDigest + "\n")
                .getBytes(StandardCharsets.US_ASCII);
    }
}
