package dev.racelab.isolation;

import dev.racelab.isolation.SqlLexer.Token;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The names a spec's roles have on the server for one run: each role the spec creates is made
 * under a name of the run's ({@code racelab_spec_<run>_<n>_<spec's name>}, cut to 63 bytes), so
 * two runs of one spec, on one server, never share or drop each other's roles, and a role of the
 * spec's name that exists already is never touched.
 *
 * <p>The SQL a session sends is the spec's with every name that is one of those roles written as
 * the run's name (quoted), and every string that is exactly such a name (as in {@code
 * has_table_privilege('r', …)} or {@code SET ROLE 'r'}) likewise; a function's body, dollar-quoted,
 * too. What a session reads back (a transcript's {@code step} line) is the spec's text: only the
 * server sees the run's names. {@link ServerReach} refuses a spec that names one of its roles where
 * this cannot rewrite it (in a body written as a string). A name is a role's wherever it stands as
 * a name (but a reserved word unquoted, which is the SQL word): a spec whose table or column has
 * one of its roles' names sees it renamed too.
 *
 * <p>A setup or teardown block is cut into {@link Piece}s: the SQL between its role statements,
 * sent by the session as written (rewritten), and the role statements, which RaceLab carries out.
 */
public final class RoleNames {

    /** A piece of a block: SQL for the session, or a role statement RaceLab carries out. */
    public sealed interface Piece {
    }

    /** SQL the session sends, with the run's role names. */
    public record Sql(String text) implements Piece {
    }

    /** A role statement RaceLab carries out, with the run's role names. */
    public record OnBehalf(RoleStatement statement, String asWritten) implements Piece {
    }

    /**
     * PostgreSQL's reserved words: a role of such a name is written quoted, and the word unquoted
     * is the SQL word, never the role.
     */
    private static final Set<String> RESERVED = Set.of("all", "analyse", "analyze", "and", "any", "array", "as",
            "asc", "asymmetric", "both", "case", "cast", "check", "collate", "column", "constraint", "create",
            "current_catalog", "current_date", "current_role", "current_time", "current_timestamp", "current_user",
            "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for",
            "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into", "lateral",
            "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or", "order",
            "placing", "primary", "references", "returning", "select", "session_user", "some", "symmetric",
            "system_user", "table", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic",
            "when", "where", "window", "with");

    /** A spec that creates no role: its SQL goes as written. */
    public static final RoleNames NONE = new RoleNames(Map.of());

    private final Map<String, String> names;

    private RoleNames(Map<String, String> names) {
        this.names = Map.copyOf(names);
    }

    /**
     * The run's names for {@code created}, each {@code prefix}, a number and the spec's name.
     *
     * @param prefix the run's own prefix, a plain lower-case name ({@code racelab_spec_1a2b3c_})
     */
    public static RoleNames of(Set<String> created, String prefix) {
        Map<String, String> names = new LinkedHashMap<>();
        int n = 1;
        for (String role : new TreeSet<>(created)) {
            names.put(role, SqlLexer.truncate(prefix + n++ + "_" + role));
        }
        return new RoleNames(names);
    }

    /** The spec's role names, each with the run's name for it. */
    public Map<String, String> all() {
        return names;
    }

    /** The run's name for the spec's role {@code role}, or {@code role} itself when the spec does not create it. */
    public String of(String role) {
        return names.getOrDefault(role, role);
    }

    /** {@code sql} with the run's role names. */
    public String rewrite(String sql) {
        if (names.isEmpty()) {
            return sql;
        }
        return rewrite(sql, SqlLexer.lex(sql, 1), 0, sql.length());
    }

    /**
     * A setup or teardown block as pieces, in order: the SQL between its role statements (left out
     * where there is nothing but blanks), and the role statements.
     *
     * @throws RoleStatement.Unsupported if a role statement is not one RaceLab carries out
     */
    public List<Piece> pieces(String block) throws RoleStatement.Unsupported {
        if (names.isEmpty()) {
            return List.of(new Sql(block));
        }
        List<Token> tokens = SqlLexer.lex(block, 1);
        List<Piece> pieces = new ArrayList<>();
        int from = 0;
        for (SqlLexer.TopLevel statement : SqlLexer.topLevel(block)) {
            RoleStatement role = RoleStatement.read(statement.words());
            if (role == null) {
                continue;
            }
            if (statement.holdsBody()) {
                // Read otherwise by ServerReach (a body's statements on their own): never carried out.
                throw new RoleStatement.Unsupported(RoleStatement.WITH_BODY);
            }
            int start = statement.tokens().get(0).start();
            String before = rewrite(block, tokens, from, start);
            if (!before.isBlank()) {
                pieces.add(new Sql(before));
            }
            List<String> run = role.roles().stream().map(this::of).toList();
            pieces.add(new OnBehalf(new RoleStatement(role.creates(), run, role.ifExists(), role.inherit()),
                    block.substring(start, statement.end()).strip()));
            from = statement.end();
        }
        String rest = rewrite(block, tokens, from, block.length());
        if (!rest.isBlank() || pieces.isEmpty()) {
            pieces.add(new Sql(rest));
        }
        return pieces;
    }

    /** The text of {@code sql} from {@code from} to {@code to}, the names in it that are the spec's roles rewritten. */
    private String rewrite(String sql, List<Token> tokens, int from, int to) {
        StringBuilder out = new StringBuilder();
        int at = from;
        for (Token t : tokens) {
            if (!t.placed() || t.start() < from || t.end() > to) {
                continue;
            }
            String run = runName(t);
            if (run != null) {
                out.append(sql, at, t.start()).append(run);
                at = t.end();
            }
        }
        return out.append(sql, at, to).toString();
    }

    /**
     * The run's name to write where {@code t} stands, quoted as {@code t} needs, or null when it
     * names none of the roles.
     */
    private String runName(Token t) {
        if (t.isString()) {
            String run = names.get(t.value());
            return run == null ? null : "'" + run.replace("'", "''") + "'";
        }
        if (t.isName() && (t.quoted() || !RESERVED.contains(t.text()))) {
            String run = names.get(t.text());
            return run == null ? null : "\"" + run.replace("\"", "\"\"") + "\"";
        }
        return null;
    }
}
