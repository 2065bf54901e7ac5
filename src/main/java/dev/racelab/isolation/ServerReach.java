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
 * COPY} to or from anything but {@code STDIN}/{@code STDOUT}; functions that act on the whole
 * server or its files ({@code pg_reload_conf}, {@code pg_promote}, {@code pg_rotate_logfile},
 * replication slots and origins, {@code pg_stat_reset_shared}/{@code _slru}/{@code
 * _replication_slot}, {@code lo_import}/{@code lo_export}, {@code pg_file_write}/{@code
 * _unlink}/{@code _rename}, {@code pg_switch_wal}, {@code pg_backup_start}/{@code
 * pg_start_backup}), by name quoted or not; setting {@code standard_conforming_strings} or {@code
 * backslash_quote} (they change how strings must be read); and {@code U&"…"} / {@code U&'…'},
 * which this lexer does not decode. Allowed: {@code pg_cancel_backend} and {@code
 * pg_terminate_backend} (PostgreSQL's own specs signal their own sessions with them; a login that
 * is no superuser may signal only its own role's sessions, but with a superuser login a spec can
 * end any session on the server).
 *
 * <p>Statements are split the way PostgreSQL's lexer does: comments, string literals and quoted
 * names are not read as SQL; a function's or {@code DO} block's body, dollar-quoted or written as
 * a string after {@code AS} or {@code DO}, is read as SQL too, as statements of its own. SQL a
 * spec builds while it runs ({@code EXECUTE} of a string) is not seen: this is a
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
    private static final Set<String> REFUSED_FUNCTIONS = Set.of("pg_reload_conf", "pg_promote", "pg_rotate_logfile",
            "pg_create_physical_replication_slot", "pg_create_logical_replication_slot", "pg_drop_replication_slot",
            "pg_replication_origin_create", "pg_replication_origin_drop", "pg_stat_reset_shared",
            "pg_stat_reset_slru", "pg_stat_reset_replication_slot", "lo_import", "lo_export", "pg_file_write",
            "pg_file_unlink", "pg_file_rename", "pg_switch_wal", "pg_backup_start", "pg_start_backup");
    /** Settings that change how a string literal is read: with them changed, this lexer would misread the spec. */
    private static final Set<String> LEXER_SETTINGS = Set.of("standard_conforming_strings", "backslash_quote");
    /** The token the lexer leaves where a U&amp; name or string starts: those are refused, not decoded. */
    private static final String UNICODE_ESCAPE = "\0U&";

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
                    || text.toString().endsWith("(") || text.toString().endsWith(".")
                    || text.toString().endsWith("U&");
            if (t.is(UNICODE_ESCAPE)) {
                text.append(text.length() > 0 ? " U&" : "U&");
                continue;
            }
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
            // The target follows the first TO or FROM outside parentheses (a query's SIMILAR TO is inside them).
            int depth = 0;
            for (int i = 1; i < t.size(); i++) {
                Token w = t.get(i);
                if (w.is("(")) {
                    depth++;
                } else if (w.is(")")) {
                    depth--;
                } else if (depth == 0 && (w.is("to") || w.is("from"))) {
                    Token target = i + 1 < t.size() ? t.get(i + 1) : null;
                    if (target != null && (target.is("stdin") || target.is("stdout"))) {
                        break;
                    }
                    return target != null && target.is("program") ? "runs a program on the server's machine"
                            : "reads or writes a file on the server's machine (only STDIN and STDOUT are allowed)";
                }
            }
        }
        for (Token w : t) {
            if (w.text().equals(UNICODE_ESCAPE) && !w.quoted()) {
                return "uses a Unicode-escaped name or string (U&\"…\" or U&'…'), which RaceLab does not read: "
                        + "it could hide any statement";
            }
        }
        if (indexOf(t, "set") >= 0 || indexOf(t, "reset") >= 0 || indexOf(t, "set_config") >= 0) {
            for (Token w : t) {
                String named = w.text().startsWith("'") ? w.text().replace("'", "").toLowerCase(Locale.ROOT) : w.text();
                if (LEXER_SETTINGS.contains(named)) {
                    return "changes " + named + ", which decides how RaceLab must read the spec's strings";
                }
            }
        }
        for (int i = 0; i + 1 < t.size(); i++) {
            if (REFUSED_FUNCTIONS.contains(t.get(i).text()) && t.get(i + 1).is("(")) {
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
            } else if ((c == 'u' || c == 'U') && i + 2 < n && sql.charAt(i + 1) == '&'
                    && (sql.charAt(i + 2) == '"' || sql.charAt(i + 2) == '\'')) {
                out.add(new Token(UNICODE_ESCAPE, false, line));
                i += 2;
            } else if (c == '\'' || ((c == 'e' || c == 'E') && i + 1 < n && sql.charAt(i + 1) == '\'')) {
                boolean escapes = c != '\'';
                int start = i;
                int at = line;
                i += escapes ? 2 : 1;
                StringBuilder value = new StringBuilder();
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == '\n') {
                        line++;
                    }
                    if (escapes && d == '\\') {
                        i = unescape(sql, i, value);
                    } else if (d == '\'' && i + 1 < n && sql.charAt(i + 1) == '\'') {
                        value.append('\'');
                        i += 2;
                    } else if (d == '\'') {
                        i++;
                        break;
                    } else {
                        value.append(d);
                        i++;
                    }
                }
                if (isBodyString(out)) {
                    // A function's or DO block's body written as a string is SQL as much as a dollar-quoted one.
                    lexBody(value.toString(), at, out);
                } else {
                    out.add(new Token(sql.substring(start, Math.min(i, n)).replace("\n", " "), false, at));
                }
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
                lexBody(body, line, out);
                line += (int) body.chars().filter(ch -> ch == '\n').count();
                i = end < 0 ? n : end + tag.length();
            } else if (isIdentStart(c)) {
                int start = i;
                while (i < n && (isIdentStart(sql.charAt(i)) || Character.isDigit(sql.charAt(i))
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

    /**
     * A body's statements, on their own: a statement ends before it and after it, so neither the
     * outer statement's words nor the ones after the body are read as part of the body's.
     */
    private static void lexBody(String body, int line, List<Token> out) {
        out.add(new Token(";", false, line));
        List<Token> inner = new ArrayList<>();
        lex(body, line, inner);
        for (Token t : inner) {
            out.add(t);
            // PL/pgSQL: a statement starts after these too (BEGIN CREATE ROLE …; IF … THEN DROP …).
            if (t.is("begin") || t.is("then") || t.is("else") || t.is("loop") || t.is("declare")) {
                out.add(new Token(";", false, t.line()));
            }
        }
        int last = inner.isEmpty() ? line : inner.get(inner.size() - 1).line();
        out.add(new Token(";", false, last));
    }

    /**
     * Whether a string lexed now is a body: after AS in CREATE [OR REPLACE] FUNCTION or PROCEDURE,
     * right after DO, or after DO LANGUAGE x.
     */
    private static boolean isBodyString(List<Token> out) {
        int start = out.size();
        while (start > 0 && !out.get(start - 1).is(";")) {
            start--;
        }
        List<Token> s = out.subList(start, out.size());
        if (s.isEmpty()) {
            return false;
        }
        if (s.get(0).is("do")) {
            return s.size() == 1 || s.size() == 3 && s.get(1).is("language");
        }
        int kind = s.size() > 3 && s.get(1).is("or") && s.get(2).is("replace") ? 3 : 1;
        return s.get(0).is("create") && kind < s.size()
                && (s.get(kind).is("function") || s.get(kind).is("procedure"))
                && (s.get(s.size() - 1).is("as") || s.size() >= 2 && s.get(s.size() - 1).is(",")
                && indexOf(s, "as") > 0);
    }

    /** Reads the escape at {@code i} (a backslash) of an E'…' string into {@code value}; returns where it ends. */
    private static int unescape(String sql, int i, StringBuilder value) {
        int n = sql.length();
        if (i + 1 >= n) {
            return n;
        }
        char e = sql.charAt(i + 1);
        int j = i + 2;
        switch (e) {
            case 'b' -> value.append('\b');
            case 'f' -> value.append('\f');
            case 'n' -> value.append('\n');
            case 'r' -> value.append('\r');
            case 't' -> value.append('\t');
            case 'x', 'u', 'U' -> {
                int max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                int k = j;
                while (k < n && k - j < max && Character.digit(sql.charAt(k), 16) >= 0) {
                    k++;
                }
                if (k == j) {
                    value.append(e);
                } else {
                    value.appendCodePoint(Integer.parseInt(sql.substring(j, k), 16));
                }
                j = k;
            }
            default -> {
                if (e >= '0' && e <= '7') {
                    int k = i + 1;
                    while (k < n && k - (i + 1) < 3 && sql.charAt(k) >= '0' && sql.charAt(k) <= '7') {
                        k++;
                    }
                    value.append((char) Integer.parseInt(sql.substring(i + 1, k), 8));
                    j = k;
                } else {
                    value.append(e);
                }
            }
        }
        return j;
    }

    /** PostgreSQL reads letters, '_' and every byte with the high bit set (any non-ASCII character) as a name's. */
    private static boolean isIdentStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80;
    }

    /** {@code $tag$} starting at {@code i}, or null when the dollar starts no quote ($1, a name's $). */
    private static String dollarTag(String sql, int i) {
        int j = i + 1;
        while (j < sql.length() && (isIdentStart(sql.charAt(j)) || Character.isDigit(sql.charAt(j)))) {
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
