package dev.racelab.isolation;

/**
 * A named piece of SQL that one session sends in one go (several statements may be separated by
 * semicolons: the server runs them in order and answers each).
 *
 * @param name    unique in the spec
 * @param sql     exactly as written between the braces, less the blanks (not newlines) right
 *                inside them: isolationtester prints it so
 * @param session the index of its session in the spec
 * @param line    where it is defined, 1-based
 */
public record Step(String name, String sql, int session, int line) {
}
