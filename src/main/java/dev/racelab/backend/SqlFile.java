package dev.racelab.backend;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Named SQL statements kept in a resource file, loaded once.
 *
 * <p>A line {@code -- name: read-counter} starts a statement; the statement runs to the next such
 * line. Statements take JDBC parameters ({@code ?}); nothing is ever concatenated into them.
 */
public final class SqlFile {

    private static final String MARKER = "-- name:";

    private final String resource;
    private final Map<String, String> statements;

    private SqlFile(String resource, Map<String, String> statements) {
        this.resource = resource;
        this.statements = Map.copyOf(statements);
    }

    /** Loads {@code name} from the package of {@code owner}. */
    public static SqlFile load(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing SQL resource " + name + " beside " + owner.getName());
            }
            return parse(owner.getPackageName() + "/" + name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static SqlFile parse(String resource, String text) {
        Map<String, String> statements = new LinkedHashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.startsWith(MARKER)) {
                if (current != null) {
                    statements.put(current, body.toString().strip());
                }
                current = line.substring(MARKER.length()).strip();
                body.setLength(0);
            } else if (current != null) {
                body.append(line).append('\n');
            }
        }
        if (current != null) {
            statements.put(current, body.toString().strip());
        }
        return new SqlFile(resource, statements);
    }

    /** The statement called {@code name}. */
    public String get(String name) {
        String sql = statements.get(name);
        if (sql == null) {
            throw new NoSuchElementException(resource + " has no statement '" + name + "'");
        }
        return sql;
    }

    public boolean has(String name) {
        return statements.containsKey(name);
    }

    /**
     * Runs on {@code c} the statement that the template {@code name} makes of {@code values}: a
     * {@code SELECT pg_catalog.format(…)} whose {@code ?}s they are, so that the names of roles and
     * databases (which cannot be parameters) are quoted by the server ({@code %I}), as are values
     * ({@code %L}).
     */
    public void runMade(java.sql.Connection c, String name, String... values) throws java.sql.SQLException {
        String statement;
        try (java.sql.PreparedStatement p = c.prepareStatement(get(name))) {
            for (int i = 0; i < values.length; i++) {
                p.setString(i + 1, values[i]);
            }
            try (java.sql.ResultSet rs = p.executeQuery()) {
                rs.next();
                statement = rs.getString(1);
            }
        }
        try (java.sql.Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
