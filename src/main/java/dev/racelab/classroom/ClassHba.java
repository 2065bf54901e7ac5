package dev.racelab.classroom;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A class's lines in the {@code pg_hba.conf} of RaceLab's embedded PostgreSQL, first in the file:
 * the class's login logs in only to its own database, and only with its password (and never for
 * replication, which {@code all} does not cover). Without them it
 * would be let in anywhere without one, as RaceLab's own sessions are from this machine. Removed when
 * the class ends; a line a killed RaceLab left names only a login that no longer exists.
 */
final class ClassHba {

    /** One RaceLab edits the file of its own server, one class at a time. */
    private static final Object EDITING = new Object();

    private final Path file;
    private final String marker;

    private ClassHba(Path file, String marker) {
        this.file = file;
        this.marker = marker;
    }

    /**
     * Puts the class's lines first in the server's file and has the server read it again.
     *
     * @param admin a superuser's session
     */
    static ClassHba confine(Connection admin, String login) throws SQLException {
        Path file;
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(ClassDatabase.SQL.get("hba-file"))) {
            rs.next();
            file = Path.of(rs.getString(1));
        }
        String marker = "# RaceLab class " + login;
        List<String> lines = List.of(
                marker,
                "host  replication  " + login + "  all  reject  " + marker,
                "local  replication  " + login + "  reject  " + marker,
                "host  " + login + "  " + login + "  all  scram-sha-256  " + marker,
                "host  all  " + login + "  all  reject  " + marker,
                "local  " + login + "  " + login + "  scram-sha-256  " + marker,
                "local  all  " + login + "  reject  " + marker);
        ClassHba hba = new ClassHba(file, marker);
        synchronized (EDITING) {
            try {
                List<String> now = Files.readAllLines(file, StandardCharsets.UTF_8);
                List<String> next = new ArrayList<>(lines);
                next.addAll(now);
                write(file, next);
            } catch (IOException e) {
                throw new SQLException("could not edit " + file + ": " + e.getMessage(), e);
            }
            reload(admin);
        }
        return hba;
    }

    /** Takes the class's lines out again, on a superuser's session {@code admin}. */
    void remove(Connection admin) {
        synchronized (EDITING) {
            try {
                List<String> kept = Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                        .filter(line -> !line.endsWith(marker)).toList();
                write(file, kept);
                reload(admin);
            } catch (IOException | SQLException e) {
                // The login they name is gone with the class: the lines are inert.
            }
        }
    }

    private static void reload(Connection admin) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute(ClassDatabase.SQL.get("reload"));
        }
    }

    private static void write(Path file, List<String> lines) throws IOException {
        Path partial = Files.createTempFile(file.getParent(), "pg_hba", ".part");
        try {
            Files.write(partial, lines, StandardCharsets.UTF_8);
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }
}
