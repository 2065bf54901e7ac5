package dev.racelab.isolation;

import dev.racelab.isolation.SqlLexer.Token;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a spec's SQL does beyond the scratch database it runs in, read from its statements as
 * written: the roles it creates and drops (roles belong to the whole server: RaceLab carries those
 * statements out itself, {@link RoleStatement}), the settings it sets and the functions it calls
 * (some need rights RaceLab grants the spec's role, or a superuser's), and the statements RaceLab
 * refuses because it could not confine them to the scratch database.
 *
 * <p>This is the second line. The first is privilege: a spec's sessions log in as a role RaceLab
 * makes for it, which owns the scratch database and nothing else; whatever this reading misses
 * (SQL a spec builds while it runs, {@code EXECUTE} of a string) meets that role's rights.
 *
 * <p>Refused: {@code ALTER SYSTEM}; {@code CREATE}, {@code ALTER} or {@code DROP} of a {@code
 * DATABASE} or {@code TABLESPACE}; a role statement RaceLab does not carry out ({@code ALTER ROLE},
 * {@code CREATE ROLE} with an option that gives more than a plain role, any role statement in a
 * step or in a function's body), {@code DROP ROLE}, {@code DROP OWNED}, {@code REASSIGN OWNED} and
 * role membership ({@code GRANT role TO …}) of a role the spec does not create; {@code GRANT},
 * {@code REVOKE}, {@code COMMENT} or {@code SECURITY LABEL} on a database, tablespace or parameter
 * (the spec cannot know its scratch database's name, so a database it names is someone else's),
 * and on a role it does not create; {@code COPY … PROGRAM} and {@code COPY} to or from anything but
 * {@code STDIN}/{@code STDOUT}; functions that act on the whole server or its files ({@code
 * pg_reload_conf}, {@code pg_promote}, {@code pg_rotate_logfile}, replication slots and origins,
 * {@code pg_stat_reset_shared}/{@code _slru}/{@code _replication_slot}, {@code lo_import}/{@code
 * lo_export}, {@code pg_file_write}/{@code _unlink}/{@code _rename}, {@code pg_switch_wal}, {@code
 * pg_backup_start}/{@code pg_start_backup}), by name quoted or not; setting {@code
 * standard_conforming_strings} or {@code backslash_quote} (they change how strings must be read);
 * and {@code U&"…"} / {@code U&'…'}, which the lexer does not decode.
 *
 * <p>Statements are split as {@link SqlLexer} splits them: a function's or {@code DO} block's body
 * is read as statements of its own.
 */
public final class ServerReach {

    /** A statement RaceLab will not run, where it is and why. */
    public record Refusal(String where, String statement, String why) {

        /** "step s1a (line 12): ALTER SYSTEM SET …: changes the configuration of the whole server" */
        public String message() {
            return where + ": " + statement + ": " + why;
        }
    }

    private static final Set<String> REFUSED_FUNCTIONS = Set.of("pg_reload_conf", "pg_promote", "pg_rotate_logfile",
            "pg_create_physical_replication_slot", "pg_create_logical_replication_slot", "pg_drop_replication_slot",
            "pg_replication_origin_create", "pg_replication_origin_drop", "pg_stat_reset_shared",
            "pg_stat_reset_slru", "pg_stat_reset_replication_slot", "lo_import", "lo_export", "pg_file_write",
            "pg_file_unlink", "pg_file_rename", "pg_switch_wal", "pg_backup_start", "pg_start_backup");
    /** Settings that change how a string literal is read: with them changed, this lexer would misread the spec. */
    private static final Set<String> LEXER_SETTINGS = Set.of("standard_conforming_strings", "backslash_quote");
    /** What follows SET at a statement's start without being a setting's name. */
    private static final Set<String> NOT_SETTINGS = Set.of("role", "session", "local", "transaction", "constraints",
            "time");
    private static final String UNICODE_ESCAPE = SqlLexer.UNICODE_ESCAPE;

    private final Set<String> createdRoles = new LinkedHashSet<>();
    private final List<Refusal> refusals = new ArrayList<>();
    /** Role statements that hold a body, as the server reads them: refused. */
    private final List<Refusal> bodyRefusals = new ArrayList<>();
    private final Set<String> settings = new TreeSet<>();
    private final Set<String> functions = new TreeSet<>();
    private final Set<String> catalogWrites = new TreeSet<>();
    /** Every statement with where it is, read in a first pass: roles may be created after a use. */
    private final List<Statement> statements = new ArrayList<>();

    /**
     * @param blockMayHoldRoles a setup or teardown block, whose role statements RaceLab carries out
     */
    private record Statement(String where, List<Token> tokens, String text, boolean blockMayHoldRoles) {

        boolean inBody() {
            return tokens.get(0).body();
        }
    }

    private ServerReach() {
    }

    /** Reads {@code spec}'s setups, teardowns and steps. */
    public static ServerReach of(Spec spec) {
        ServerReach reach = new ServerReach();
        for (int i = 0; i < spec.setups().size(); i++) {
            reach.read(spec.setups().size() == 1 ? "setup" : "setup block " + (i + 1), 0, spec.setups().get(i), true);
        }
        if (spec.teardown() != null) {
            reach.read("teardown", 0, spec.teardown(), true);
        }
        for (Session session : spec.sessions()) {
            if (session.setup() != null) {
                reach.read("setup of session " + session.name(), 0, session.setup(), true);
            }
            for (Step step : session.steps()) {
                reach.read("step " + step.name(), step.line(), step.sql(), false);
            }
            if (session.teardown() != null) {
                reach.read("teardown of session " + session.name(), 0, session.teardown(), true);
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

    /**
     * The settings the spec's statements set or reset by name ({@code SET}, {@code RESET}, {@code
     * set_config('…'}, a function's {@code SET} clause), in lower case as the server matches them,
     * sorted: those only a superuser may set need a grant to the spec's role.
     */
    public Set<String> settings() {
        return Collections.unmodifiableSet(settings);
    }

    /**
     * The columns of PostgreSQL's catalogs the spec's statements update ({@code UPDATE} or {@code
     * MERGE} of a catalog table), each as {@code pg_class.reltuples}: those a spec's role may write
     * in its scratch database are granted, the others are refused by the server.
     */
    public Set<String> catalogWrites() {
        return Collections.unmodifiableSet(catalogWrites);
    }

    /**
     * Every name the spec's statements write as a call ({@code name(}), unqualified, sorted: the
     * functions it calls among them (and a table's name before its columns).
     */
    public Set<String> functions() {
        return Collections.unmodifiableSet(functions);
    }

    // ---- reading ------------------------------------------------------------------------------

    /** @param fileLine the spec file's line the SQL starts on, or 0 when unknown (then lines count within the block) */
    private void read(String where, int fileLine, String sql, boolean blockMayHoldRoles) {
        for (List<Token> tokens : SqlLexer.statements(sql, 1)) {
            add(where, fileLine, tokens, blockMayHoldRoles);
        }
        // Read as the server reads it, a role statement must hold no body: RaceLab carries out what
        // the server would read (RoleNames), and a body splits the statement in the reading above.
        for (SqlLexer.TopLevel statement : SqlLexer.topLevel(sql)) {
            List<Token> words = statement.words();
            if (statement.holdsBody() && !words.isEmpty() && RoleStatement.isRoleStatement(words)
                    && (words.get(0).is("create") || words.get(0).is("drop") || words.get(0).is("alter"))) {
                bodyRefusals.add(new Refusal(place(where, fileLine, words.get(0).line()), shown(words),
                        RoleStatement.WITH_BODY));
            }
        }
    }

    private void add(String where, int fileLine, List<Token> tokens, boolean blockMayHoldRoles) {
        statements.add(new Statement(place(where, fileLine, tokens.get(0).line()), List.copyOf(tokens), shown(tokens),
                blockMayHoldRoles));
        // CREATE ROLE/USER/GROUP name, and ALTER ROLE a RENAME TO b (b is then the spec's too).
        if (tokens.size() >= 3 && tokens.get(0).is("create") && RoleStatement.isRoleStatement(tokens)) {
            createdRoles.add(tokens.get(2).text());
        }
        int rename = SqlLexer.indexOf(tokens, "rename");
        if (tokens.size() >= 3 && tokens.get(0).is("alter") && RoleStatement.isRoleStatement(tokens) && rename > 0
                && rename + 2 < tokens.size() && tokens.get(rename + 1).is("to")) {
            createdRoles.add(tokens.get(rename + 2).text());
        }
        noteSettingsAndFunctions(tokens);
    }

    /** "step s1a (line 12)", or "setup (its line 2)" where the block's place in the file is not known. */
    private static String place(String where, int fileLine, int line) {
        return fileLine > 0 ? where + " (line " + (fileLine + line - 1) + ")" : where + " (its line " + line + ")";
    }

    /** The statement as the refusal shows it: words folded, at most 80 characters. */
    private static String shown(List<Token> tokens) {
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
        return text.length() > 80 ? text.substring(0, 77) + "…" : text.toString();
    }

    private void noteSettingsAndFunctions(List<Token> t) {
        int kind = t.size() > 3 && t.get(1).is("or") && t.get(2).is("replace") ? 3 : 1;
        boolean routine = (t.get(0).is("create") || t.get(0).is("alter")) && kind < t.size()
                && (t.get(kind).is("function") || t.get(kind).is("procedure") || t.get(kind).is("routine"));
        if (t.get(0).is("set") || t.get(0).is("reset")) {
            int at = 1;
            while (at < t.size() && (t.get(at).is("session") || t.get(at).is("local"))) {
                at++;
            }
            if (at < t.size() && t.get(at).isName() && !(at == 1 && NOT_SETTINGS.contains(t.get(at).text())
                    && !t.get(at).quoted())) {
                settings.add(t.get(at).text().toLowerCase(Locale.ROOT));
            }
        } else if (routine) {
            for (int i = 1; i + 1 < t.size(); i++) {
                if (t.get(i).is("set") && t.get(i + 1).isName()) {
                    settings.add(t.get(i + 1).text().toLowerCase(Locale.ROOT));
                }
            }
        }
        if ((t.get(0).is("update") || t.get(0).is("merge")) && SqlLexer.indexOf(t, "pg_class") > 0) {
            for (int i = 1; i + 1 < t.size(); i++) {
                // UPDATE pg_class SET a = …, b = …; MERGE … WHEN MATCHED THEN UPDATE SET a = …
                if ((t.get(i).is("set") || t.get(i).is(",")) && t.get(i + 1).isName() && i + 2 < t.size()
                        && t.get(i + 2).is("=")) {
                    catalogWrites.add("pg_class." + t.get(i + 1).text());
                }
            }
        }
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i).isName() && t.get(i + 1).is("(")) {
                functions.add(t.get(i).text());
                if (t.get(i).is("set_config") && i + 2 < t.size() && t.get(i + 2).isString()) {
                    settings.add(t.get(i + 2).value().toLowerCase(Locale.ROOT));
                }
            }
        }
    }

    private void judge() {
        refusals.addAll(bodyRefusals);
        for (Statement s : statements) {
            String why = roleWhy(s);
            if (why == null) {
                why = why(s.tokens());
            }
            if (why != null) {
                refusals.add(new Refusal(s.where(), s.text(), why));
            }
        }
    }

    /**
     * Why RaceLab will not carry out or run a statement about roles, or null: role statements it
     * carries out itself, only as statements of setup and teardown blocks; and a name of one of the
     * spec's roles must stand where it can be given the run's name ({@link RoleNames}).
     */
    private String roleWhy(Statement s) {
        List<Token> t = s.tokens();
        for (Token w : t) {
            if (!w.placed() && (w.isName() && createdRoles.contains(w.text())
                    || w.isString() && createdRoles.contains(w.value()))) {
                return "names role " + w.text() + " in a function's body written as a string, where RaceLab cannot "
                        + "give the role its run's name: write the body dollar-quoted ($$ … $$)";
            }
        }
        if (!RoleStatement.isRoleStatement(t) || !(t.get(0).is("create") || t.get(0).is("drop")
                || t.get(0).is("alter"))) {
            return null;
        }
        for (Token role : RoleStatement.roleNames(t, 2)) {
            if (!t.get(0).is("create") && !createdRoles.contains(role.text())) {
                return "role " + role.text() + " is not one the spec creates";
            }
        }
        if (s.inBody() || !s.blockMayHoldRoles()) {
            return "RaceLab creates and drops a spec's roles itself, for the role statements of its setup and "
                    + "teardown blocks, not " + (s.inBody() ? "inside a function's body" : "in a step");
        }
        if (t.get(0).is("alter")) {
            return "RaceLab carries out a spec's CREATE ROLE and DROP ROLE itself, not ALTER ROLE";
        }
        try {
            RoleStatement.read(t);
            return null;
        } catch (RoleStatement.Unsupported e) {
            return e.getMessage();
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
        if ((first.is("drop") || first.is("reassign")) && second != null && second.is("owned")) {
            int by = SqlLexer.indexOf(t, "by");
            int to = SqlLexer.indexOf(t, "to");
            for (Token role : RoleStatement.roleNames(t.subList(0, to > 0 ? to : t.size()), by + 1)) {
                if (!createdRoles.contains(role.text())) {
                    return "role " + role.text() + " is not one the spec creates";
                }
            }
        }
        if (first.is("grant") || first.is("revoke")) {
            int on = SqlLexer.indexOf(t, "on");
            if (on < 0) {
                // Membership: GRANT role TO role. Its grantees are someone else's unless the spec made them.
                int to = Math.max(SqlLexer.indexOf(t, "to"), SqlLexer.indexOf(t, "from"));
                if (to > 0) {
                    for (Token role : RoleStatement.roleNames(t, to + 1)) {
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
            int on = SqlLexer.indexOf(t, "on");
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
        if (SqlLexer.indexOf(t, "set") >= 0 || SqlLexer.indexOf(t, "reset") >= 0
                || SqlLexer.indexOf(t, "set_config") >= 0) {
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
        if (RoleStatement.isRoleKind(kind)) {
            for (Token role : RoleStatement.roleNames(t, at + 1)) {
                if (!createdRoles.contains(role.text())) {
                    return "role " + role.text() + " is not one the spec creates";
                }
            }
        }
        return null;
    }
}
