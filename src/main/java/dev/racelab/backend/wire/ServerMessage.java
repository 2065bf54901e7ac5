package dev.racelab.backend.wire;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * An ErrorResponse or NoticeResponse as the server sent it: its fields by their one-letter codes
 * (PostgreSQL's protocol, "Error and Notice Message Fields").
 */
public record ServerMessage(Map<Character, String> fields) {

    public ServerMessage {
        fields = Map.copyOf(fields);
    }

    /**
     * The server's error as the JDBC driver reports it: its severity, SQLSTATE, message, detail
     * and hint; null when the driver failed without a word from the server (a broken connection).
     */
    public static ServerMessage of(SQLException e) {
        ServerErrorMessage server = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
        if (server == null) {
            return null;
        }
        Map<Character, String> fields = new HashMap<>();
        put(fields, 'S', server.getSeverity());
        put(fields, 'C', server.getSQLState());
        put(fields, 'M', server.getMessage());
        put(fields, 'D', server.getDetail());
        put(fields, 'H', server.getHint());
        return new ServerMessage(fields);
    }

    private static void put(Map<Character, String> fields, char code, String value) {
        if (value != null) {
            fields.put(code, value);
        }
    }

    /** ERROR, FATAL, NOTICE, WARNING…, in the session's language ({@code lc_messages}). */
    public String severity() {
        return fields.get('S');
    }

    /** The SQLSTATE code, e.g. {@code 40001}. */
    public String sqlState() {
        return fields.get('C');
    }

    /** The primary message, one line. */
    public String message() {
        return fields.get('M');
    }

    public String field(char code) {
        return fields.get(code);
    }

    /**
     * The message as libpq hands it to a notice processor at its default verbosity: {@code
     * SEVERITY:  message}, then DETAIL, HINT and QUERY lines, each ending in a newline. (A notice
     * is not an error, so libpq shows no CONTEXT. libpq's cursor display for a notice that points
     * into its statement is not reproduced: no server notice in PostgreSQL's isolation tests does.)
     */
    public String asLibpqNotice() {
        StringBuilder text = new StringBuilder();
        if (severity() != null) {
            text.append(severity()).append(":  ");
        }
        if (message() != null) {
            text.append(message());
        }
        text.append('\n');
        appendLine(text, "DETAIL", fields.get('D'));
        appendLine(text, "HINT", fields.get('H'));
        appendLine(text, "QUERY", fields.get('q'));
        return text.toString();
    }

    /**
     * The message as libpq's {@code PQerrorMessage} gives an error at its default verbosity: as a
     * notice, and the CONTEXT line too.
     */
    public String asLibpqError() {
        StringBuilder text = new StringBuilder(asLibpqNotice());
        appendLine(text, "CONTEXT", fields.get('W'));
        return text.toString();
    }

    private static void appendLine(StringBuilder text, String label, String value) {
        if (value != null) {
            text.append(label).append(":  ").append(value).append('\n');
        }
    }

    /** {@code SEVERITY:  message}, as isolationtester prints a step's error. */
    @Override
    public String toString() {
        return severity() + ":  " + message();
    }
}
