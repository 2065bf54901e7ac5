package dev.racelab.isolation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a spec's SQL does beyond the scratch database it runs in, read from its statements as
 * written: the roles it creates (roles belong to the whole server), and the statements RaceLab
 * refuses because it could not confine them to the scratch database.
 *
 * <p>Refused: {@code ALTER SYSTEM}; {@code CREATE}, {@code ALTER} or {@code DROP} of a {@code
 * DATABASE} or {@code TABLESPACE}; {@code DROP ROLE}, {@code ALTER ROLE}, {@code DROP OWNED},
 * {@code REASSIGN OWNED} and role membership ({@code GRANT role TO …}) of a role the spec does not
 * create; {@code GRANT}, {@code REVOKE}, {@code COMMENT} or {@code SECURITY LABEL} on a database,
 * tablespace or parameter (the spec cannot know its scratch database's name, so a database it
 * names is someone else's), and on a role it does not create; {@code COPY … PROGRAM} and {@code
 * COPY} to or from a server file; {@code pg_reload_conf}, {@code pg_promote}, {@code
 * pg_rotate_logfile}. Allowed: {@code pg_cancel_backend} and {@code pg_terminate_backend}
 * (PostgreSQL's own specs signal their own sessions with them; PostgreSQL lets a login that is no
 * superuser signal only its own role's sessions).
 *
 * <p>Statements are split the way PostgreSQL's lexer does: comments, string literals and quoted
 * names are not read as SQL; a dollar-quoted body (a function's, a {@code DO} block's) is read as
 * SQL too. SQL a spec builds while it runs ({@code EXECUTE} of a string) is not seen: this is a
 * guard against the statements a spec shows, not a sandbox. What the login may do is the last
 * bound, so run a spec you do not trust with a login that is no superuser.
 *
 * <p>Names fold as PostgreSQL folds them: unquoted to lower case (ASCII letters), quoted as
 * written ({@code ""} a quote), both cut to 63 bytes.
 */
public final class ServerReach {

    /** A statement RaceLab will not run, where it is and why. */
    public record Refusal(String where, String statement, String why) {

        /** "step s1a (line 12): ALTER SYSTEM SET …: changes the configuration of the whole server" */
        public String message() {
            return where + ": " + statement + ": " + why;
        }
    }

    private static final int NAME_BYTES = 63;
    private static final Set<String> REFUSED_FUNCTIONS = Set.of("pg_reload_conf", "pg_promote", "pg_rotate_logfile");

    private final Set<String> createdRoles = new LinkedHashSet<>();
    private final List<Refusal> refusals = new ArrayList<>();
    /** Every statement with where it is, read in a first pass: roles may be created after a use. */
    private final List<Statement> statements = new ArrayList<>();

    private record Token(String text, boolean quoted, int line) {

        boolean is(String word) {
            return !quoted && text.equals(word);
        }
    }

    private record Statement(String where, int firstLine, List<Token> tokens, String text) {
    }

    private ServerReach() {
    }

    /** Reads {@code spec}'s setups, teardowns and steps. */
    public static ServerReach of(Spec spec) {
        ServerReach reach = new ServerReach();
        for (int i = 0; i < spec.setups().size(); i++) {
            reach.read(spec.setups().size() == 1 ? "setup" : "setup block " + (i + 1), 0, spec.setups().get(i));
        }
        if (spec.teardown() != null) {
            reach.read("teardown", 0, spec.teardown());
        }
        for (Session session : spec.sessions()) {
            if (session.setup() != null) {
                reach.read("setup of session " + session.name(), 0, session.setup());
            }
            for (Step step : session.steps()) {
                reach.read("step " + step.name(), step.line(), step.sql());
            }
            if (session.teardown() != null) {
                reach.read("teardown of session " + session.name(), 0, session.teardown());
            }
        }
        reach.judge();
        return reach;
    }

    /** The roles the spec's statements create, as the server names them. */
    public Set<String> createdRoles() {
        return Set.copyOf(createdRoles);
    }

    /** The statements RaceLab refuses to run, in the spec's order; empty when it may run. */
    public List<Refusal> refusals() {
        return List.copyOf(refusals);
    }

    // ---- reading ------------------------------------------------------------------------------

    /** @param fileLine the spec file's line the SQL starts on, or 0 when unknown (then lines count within the block) */
    private void read(String where, int fileLine, String sql) {
        List<Token> tokens = new ArrayList<>();
        lex(sql, 1, tokens);
        List<Token> current = new ArrayList<>();
        for (Token t : tokens) {
            if (t.is(";")) {
                add(where, fileLine, sql, current);
                current = new ArrayList<>();
            } else {
                current.add(t);
            }
        }
        add(where, fileLine, sql, current);
    }

    private void add(String where, int fileLine, String sql, List<Token> tokens) {
        if (tokens.isEmpty()) {
            return;
        }
        int line = tokens.get(0).line();
        String place = fileLine > 0 ? where + " (line " + (fileLine + line - 1) + ")"
                : where + " (its line " + line + ")";
        StringBuilder text = new StringBuilder();
        for (Token t : tokens) {
            boolean joined = t.is(",") || t.is(")") || t.is(".") || t.is("(") && text.length() > 0
                    || text.toString().endsWith("(") || text.toString().endsWith(".");
            if (text.length() > 0 && !joined) {
                text.append(' ');
            }
            text.append(t.quoted() ? '"' + t.text().replace("\"", "\"\"") + '"' : t.text());
        }
        String shown = text.length() > 80 ? text.substring(0, 77) + "…" : text.toString();
        statements.add(new Statement(place, line, List.copyOf(tokens), shown));
        // CREATE ROLE/USER/GROUP name, and ALTER ROLE a RENAME TO b (b is then the spec's too).
        if (tokens.size() >= 3 && tokens.get(0).is("create") && isRoleStatement(tokens)) {
            createdRoles.add(tokens.get(2).text());
        }
        int rename = indexOf(tokens, "rename");
        if (tokens.size() >= 3 && tokens.get(0).is("alter") && isRoleStatement(tokens) && rename > 0
                && rename + 2 < tokens.size() && tokens.get(rename + 1).is("to")) {
            createdRoles.add(tokens.get(rename + 2).text());
        }
    }

    private void judge() {
        for (Statement s : statements) {
            String why = why(s.tokens());
            if (why != null) {
                refusals.add(new Refusal(s.where(), s.text(), why));
            }
        }
    }

    /** Why RaceLab refuses the statement, or null when it may run. */
    private String why(List<Token> t) {
        Token first = t.get(0);
        Token second = t.size() > 1 ? t.get(1) : null;
        if (first.is("alter") && second != null && second.is("system")) {
            return "changes the configuration of the whole server";
        }
        if ((first.is("create") || first.is("alter") || first.is("drop")) && second != null
                && (second.is("database") || second.is("tablespace"))) {
            return "a " + second.text() + " belongs to the whole server, not to the scratch database the spec runs in";
        }
        if ((first.is("drop") || first.is("alter")) && isRoleStatement(t)) {
            for (Token role : roleNames(t, 2)) {
                if (!createdRoles.contains(role.text())) {
                    return "role " + role.text() + " is not one the spec creates";
                }
            }
        }
        if ((first.is("drop") || first.is("reassign")) && second != null && second.is("owned")) {
            int by = indexOf(t, "by");
            int to = indexOf(t, "to");
            for (Token role : roleNames(t.subList(0, to > 0 ? to : t.size()), by + 1)) {
                if (!createdRoles.contains(role.text())) {
                    return "role " + role.text() + " is not one the spec creates";
                }
            }
        }
        if (first.is("grant") || first.is("revoke")) {
            int on = indexOf(t, "on");
            if (on < 0) {
                // Membership: GRANT role TO role. Its grantees are someone else's unless the spec made them.
                int to = Math.max(indexOf(t, "to"), indexOf(t, "from"));
                if (to > 0) {
                    for (Token role : roleNames(t, to + 1)) {
                        if (!createdRoles.contains(role.text())) {
                            return "changes the membership of role " + role.text() + ", which is not one the spec "
                                    + "creates";
                        }
                    }
                }
            } else if (on + 1 < t.size()) {
                String shared = sharedObject(t, on + 1);
                if (shared != null) {
                    return shared;
                }
            }
        }
        if ((first.is("comment") || (first.is("security") && second != null && second.is("label")))) {
            int on = indexOf(t, "on");
            if (on > 0 && on + 1 < t.size()) {
                String shared = sharedObject(t, on + 1);
                if (shared != null) {
                    return shared;
                }
            }
        }
        if (first.is("copy")) {
            int direction = Math.max(indexOf(t, "to"), indexOf(t, "from"));
            if (direction > 0 && direction + 1 < t.size()) {
                Token target = t.get(direction + 1);
                if (target.is("program")) {
                    return "runs a program on the server's machine";
                }
                if (target.text().startsWith("'") || target.text().startsWith("E'")
                        || target.text().startsWith("e'")) {
                    return "reads or writes a file on the server's machine";
                }
            }
        }
        for (int i = 0; i + 1 < t.size(); i++) {
            if (!t.get(i).quoted() && REFUSED_FUNCTIONS.contains(t.get(i).text()) && t.get(i + 1).is("(")) {
                return t.get(i).text() + " acts on the whole server";
            }
        }
        return null;
    }

    /** Why a GRANT/COMMENT … ON object at {@code at} reaches beyond the scratch database, or null. */
    private String sharedObject(List<Token> t, int at) {
        Token kind = t.get(at);
        if (kind.is("database") || kind.is("tablespace") || kind.is("parameter")) {
            String name = at + 1 < t.size() ? t.get(at + 1).text() : "";
            return kind.is("database")
                    ? "database " + name + " is not the spec's: it runs in a scratch database whose name it cannot know"
                    : "a " + kind.text() + " belongs to the whole server";
        }
        if (isRoleKind(kind)) {
            for (Token role : roleNames(t, at + 1)) {
                if (!createdRoles.contains(role.text())) {
                    return "role " + role.text() + " is not one the spec creates";
                }
            }
        }
        return null;
    }

    /** ROLE, USER or GROUP after the verb, and not USER MAPPING (a foreign server's, in the database). */
    private static boolean isRoleStatement(List<Token> t) {
        return t.size() > 2 && isRoleKind(t.get(1)) && !(t.get(1).is("user") && t.get(2).is("mapping"));
    }

    private static boolean isRoleKind(Token t) {
        return t.is("role") || t.is("user") || t.is("group");
    }

    /** The role names from {@code from}: a comma-separated list, after IF EXISTS; stops at the first other word. */
    private static List<Token> roleNames(List<Token> t, int from) {
        List<Token> names = new ArrayList<>();
        int i = from;
        if (i + 1 < t.size() && t.get(i).is("if") && t.get(i + 1).is("exists")) {
            i += 2;
        }
        if (i < t.size() && t.get(i).is("all")) {
            names.add(new Token("ALL (every role)", true, t.get(i).line()));
            return names;
        }
        while (i < t.size()) {
            Token name = t.get(i);
            if (name.is("group") && i + 1 < t.size()) {
                name = t.get(++i);
            }
            if (name.is("current_user") || name.is("session_user") || name.is("current_role")
                    || name.is("public")) {
                names.add(new Token(name.text().toUpperCase(Locale.ROOT) + " (a role the spec does not create)",
                        true, name.line()));
            } else {
                names.add(name);
            }
            if (i + 1 < t.size() && t.get(i + 1).is(",")) {
                i += 2;
            } else {
                break;
            }
        }
        return names;
    }

    private static int indexOf(List<Token> t, String word) {
        for (int i = 0; i < t.size(); i++) {
            if (t.get(i).is(word)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * PostgreSQL's lexer, as far as telling statements and names apart needs: words folded, quoted
     * names kept, strings as one token (their text as written, quotes and all), comments dropped,
     * dollar-quoted bodies read again as SQL.
     */
    private static void lex(String sql, int startLine, List<Token> out) {
        int line = startLine;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int depth = 0;
                do {
                    if (sql.startsWith("/*", i)) {
                        depth++;
                        i += 2;
                    } else if (sql.startsWith("*/", i)) {
                        depth--;
                        i += 2;
                    } else {
                        if (sql.charAt(i) == '\n') {
                            line++;
                        }
                        i++;
                    }
                } while (i < n && depth > 0);
            } else if (c == '\'' || ((c == 'e' || c == 'E') && i + 1 < n && sql.charAt(i + 1) == '\'')) {
                boolean escapes = c != '\'';
                int start = i;
                i += escapes ? 2 : 1;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == '\n') {
                        line++;
                    }
                    if (escapes && d == '\\') {
                        i += 2;
                    } else if (d == '\'' && i + 1 < n && sql.charAt(i + 1) == '\'') {
                        i += 2;
                    } else if (d == '\'') {
                        i++;
                        break;
                    } else {
                        i++;
                    }
                }
                out.add(new Token(sql.substring(start, Math.min(i, n)).replace("\n", " "), false, line));
            } else if (c == '"') {
                StringBuilder name = new StringBuilder();
                int at = line;
                i++;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == '"' && i + 1 < n && sql.charAt(i + 1) == '"') {
                        name.append('"');
                        i += 2;
                    } else if (d == '"') {
                        i++;
                        break;
                    } else {
                        if (d == '\n') {
                            line++;
                        }
                        name.append(d);
                        i++;
                    }
                }
                out.add(new Token(truncate(name.toString()), true, at));
            } else if (c == '$' && dollarTag(sql, i) != null) {
                String tag = dollarTag(sql, i);
                int bodyStart = i + tag.length();
                int end = sql.indexOf(tag, bodyStart);
                String body = sql.substring(bodyStart, end < 0 ? n : end);
                List<Token> inner = new ArrayList<>();
                lex(body, line, inner);
                for (Token t : inner) {
                    out.add(t);
                    // PL/pgSQL: a statement starts after these too (BEGIN CREATE ROLE …; IF … THEN DROP …).
                    if (t.is("begin") || t.is("then") || t.is("else") || t.is("loop") || t.is("declare")) {
                        out.add(new Token(";", false, t.line()));
                    }
                }
                line += (int) body.chars().filter(ch -> ch == '\n').count();
                i = end < 0 ? n : end + tag.length();
                // The body's statements are its own: a word after it starts nothing new of them.
                out.add(new Token(";", false, line));
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_'
                        || sql.charAt(i) == '$')) {
                    i++;
                }
                out.add(new Token(truncate(fold(sql.substring(start, i))), false, line));
            } else {
                out.add(new Token(String.valueOf(c), false, line));
                i++;
            }
        }
    }

    /** {@code $tag$} starting at {@code i}, or null when the dollar starts no quote ($1, a name's $). */
    private static String dollarTag(String sql, int i) {
        int j = i + 1;
        while (j < sql.length() && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
            j++;
        }
        if (j < sql.length() && sql.charAt(j) == '$' && (j == i + 1 || !Character.isDigit(sql.charAt(i + 1)))) {
            return sql.substring(i, j + 1);
        }
        return null;
    }

    /** PostgreSQL folds unquoted names' ASCII letters to lower case (in UTF-8, only those). */
    private static String fold(String word) {
        StringBuilder folded = new StringBuilder(word.length());
        for (int k = 0; k < word.length(); k++) {
            char ch = word.charAt(k);
            folded.append(ch >= 'A' && ch <= 'Z' ? (char) (ch + 32) : ch);
        }
        return folded.toString();
    }

    /** Names longer than NAMEDATALEN - 1 bytes are cut, on a character's boundary. */
    private static String truncate(String name) {
        if (name.getBytes(StandardCharsets.UTF_8).length <= NAME_BYTES) {
            return name;
        }
        StringBuilder cut = new StringBuilder();
        int bytes = 0;
        for (int k = 0; k < name.length(); ) {
            int cp = name.codePointAt(k);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + size > NAME_BYTES) {
                break;
            }
            cut.appendCodePoint(cp);
            bytes += size;
            k += Character.charCount(cp);
        }
        return cut.toString();
    }
}
