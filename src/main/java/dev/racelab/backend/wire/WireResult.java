package dev.racelab.backend.wire;

import java.util.List;

/**
 * One statement's answer, as libpq would return it from {@code PQgetResult}: a command's tag,
 * a table of rows (every value as the server's text, null for SQL NULL), or an error.
 *
 * @param status  what kind of answer it is
 * @param columns the column names of a {@link Status#TUPLES_OK} answer, else empty
 * @param rows    its rows, each as many values as there are columns
 * @param tag     the command tag ({@code UPDATE 1}), or null
 * @param error   the server's error for {@link Status#FATAL_ERROR}; null when the connection broke
 *                (then {@link #text} says so, as libpq words it)
 * @param text    libpq's message for an error that did not come from the server, else null
 */
public record WireResult(Status status, List<String> columns, List<List<String>> rows, String tag,
                         ServerMessage error, String text) {

    /** libpq's {@code ExecStatusType}, for the answers this client gives. */
    public enum Status {
        COMMAND_OK, TUPLES_OK, EMPTY_QUERY, FATAL_ERROR, COPY_IN, COPY_OUT;

        /** As libpq's {@code PQresStatus} names it. */
        public String libpqName() {
            return "PGRES_" + name();
        }
    }

    public WireResult {
        columns = List.copyOf(columns);
        rows = rows.stream().map(row -> java.util.Collections.unmodifiableList(new java.util.ArrayList<>(row)))
                .toList();
    }

    static WireResult command(String tag) {
        return new WireResult(Status.COMMAND_OK, List.of(), List.of(), tag, null, null);
    }

    static WireResult failed(ServerMessage error) {
        return new WireResult(Status.FATAL_ERROR, List.of(), List.of(), null, error, null);
    }

    /** A result libpq makes itself when the connection fails: no server fields, only its text. */
    public static WireResult lost(String text) {
        return new WireResult(Status.FATAL_ERROR, List.of(), List.of(), null, null, text);
    }

    public boolean failed() {
        return status == Status.FATAL_ERROR;
    }

    /** What went wrong, as libpq words an error ({@code ERROR:  …}), or the text when there is no error. */
    public String problem() {
        return error() != null ? error().asLibpqError() : text();
    }

    /** {@link #problem} in one line: the error's primary message, or the text's first line. */
    public String problemLine() {
        return error() != null ? error().message() : text().strip().lines().findFirst().orElse("");
    }
}
