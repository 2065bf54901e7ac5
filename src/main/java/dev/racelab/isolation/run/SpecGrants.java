package dev.racelab.isolation.run;

import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Spec;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a spec's login is given beyond owning its scratch database: only what PostgreSQL's own
 * specs need, and only what the spec names ({@link ServerReach}). A spec that needs more (another
 * superuser-only setting or function, a catalog column, or a grant the user's login cannot give)
 * is refused, saying what, with the way to run it as the user's login instead.
 *
 * <ul>
 * <li>{@link #SETTINGS}: superuser-only settings it may set in its own sessions (PostgreSQL 15's
 *     {@code GRANT SET ON PARAMETER}; needs a superuser login).</li>
 * <li>{@link #FUNCTIONS}: functions that reset the statistics of the database they are called in,
 *     granted in the scratch database only.</li>
 * <li>{@link #CATALOG_COLUMNS}: a table's row count estimate in the scratch database's own
 *     catalog, which only that database's planner reads (PostgreSQL 17's eval-plan-qual sets it).</li>
 * <li>With {@code allow_system_table_mods}: USAGE and CREATE on the scratch database's schema
 *     {@code pg_toast}, to rename its own tables' TOAST tables (reindex-concurrently-toast).</li>
 * </ul>
 */
final class SpecGrants {

    /** Superuser-only settings a spec's role may set in its own sessions: PostgreSQL's own specs set these. */
    static final Set<String> SETTINGS = Set.of("deadlock_timeout", "lc_messages", "track_counts", "track_functions",
            "track_activities", "track_io_timing", "track_wal_io_timing", "allow_system_table_mods",
            "session_replication_role", "log_lock_waits");
    /** Functions that act on the database they are called in, not the server: granted in the scratch database. */
    static final Set<String> FUNCTIONS = Set.of("pg_stat_reset", "pg_stat_reset_single_function_counters");
    /** Columns of the scratch database's own catalog a spec's role may update. */
    static final Set<String> CATALOG_COLUMNS = Set.of("pg_class.reltuples");
    /** What the user does to run a spec as their login, in the words of the command line and the window. */
    static final String AS_LOGIN_HINT = "--as-login on the command line, 'Run as my login' in the window";
    private static final int PG15 = 150_000;

    /** One right: its template in isolation.sql and the values before the grantee; where it is given. */
    private record Grant(String template, List<String> values, boolean inScratch) {
    }

    /** The login's rights, as the server reports them. */
    record Rights(boolean superuser, boolean createDb, boolean createRole, String user, int version) {

        static Rights of(Connection admin) throws SQLException {
            try (PreparedStatement p = admin.prepareStatement(AdminSql.get("rights"));
                 ResultSet rs = p.executeQuery()) {
                rs.next();
                return new Rights(rs.getBoolean("rolsuper"), rs.getBoolean("rolcreatedb"),
                        rs.getBoolean("rolcreaterole"), rs.getString("current_user"), rs.getInt("version"));
            }
        }
    }

    private final List<Grant> grants;

    private SpecGrants(List<Grant> grants) {
        this.grants = List.copyOf(grants);
    }

    /**
     * What {@code spec}'s login is to be given, asked of the server (which settings only a
     * superuser may set, which functions not everyone may call).
     *
     * @throws IsolationFailure if the spec needs what RaceLab will not or cannot grant (saying what)
     */
    static SpecGrants plan(Connection admin, Spec spec, ServerReach reach, Rights rights)
            throws SQLException, IsolationFailure {
        List<Grant> grants = new ArrayList<>();
        List<String> needs = new ArrayList<>();
        for (List<String> row : query(admin, "superuser-settings", reach.settings())) {
            String setting = row.get(0);
            if (!SETTINGS.contains(setting)) {
                needs.add("it sets " + setting + ", which only a superuser may set");
            } else if (!rights.superuser() || rights.version() < PG15) {
                needs.add("it sets " + setting + ", which only a superuser may set, and RaceLab can let the spec's "
                        + "role set it only with a superuser login on PostgreSQL 15 or newer");
            } else {
                grants.add(new Grant("grant-setting", List.of(setting), false));
                if (setting.equals("allow_system_table_mods")) {
                    grants.add(new Grant("grant-toast", List.of(), true));
                }
            }
        }
        for (List<String> row : query(admin, "revoked-functions", reach.functions())) {
            if (!FUNCTIONS.contains(row.get(0))) {
                needs.add("it calls " + row.get(0) + ", which not everyone may call");
            } else if (!rights.superuser()) {
                needs.add("it calls " + row.get(0) + ", which RaceLab can let the spec's role call only with a "
                        + "superuser login");
            } else {
                grants.add(new Grant("grant-function", List.of(row.get(1)), true));
            }
        }
        for (String column : reach.catalogWrites()) {
            if (!CATALOG_COLUMNS.contains(column)) {
                needs.add("it updates " + column + ", which only a superuser may change");
            } else if (!rights.superuser()) {
                needs.add("it updates " + column + ", which RaceLab can let the spec's role change only with a "
                        + "superuser login");
            } else {
                String[] table = column.split("\\.");
                grants.add(new Grant("grant-catalog-column", List.of(table[1], table[0]), true));
            }
        }
        if (!needs.isEmpty()) {
            throw new IsolationFailure("refused, nothing ran: spec " + spec.name() + " runs as a role of its own, "
                    + "which owns only its scratch database, and needs more: " + String.join("; ", needs.stream()
                    .distinct().toList()) + ". To run it as " + rights.user() + ", with all of its rights, ask for "
                    + "that (" + AS_LOGIN_HINT + ")");
        }
        return new SpecGrants(grants);
    }

    /** Nothing to give: a spec run as the user's own login. */
    static SpecGrants none() {
        return new SpecGrants(List.of());
    }

    /** Whether any of it is given inside the scratch database (on a connection there). */
    /** Whether nothing is to be given. */
    boolean isEmpty() {
        return grants.isEmpty();
    }

    boolean inScratch() {
        return grants.stream().anyMatch(Grant::inScratch);
    }

    /** Gives {@code login} the rights planned: settings on {@code admin}, the rest on {@code inScratch}. */
    void give(Connection admin, Connection inScratch, String login) throws SQLException {
        for (Grant g : grants) {
            List<String> values = new ArrayList<>(g.values());
            values.add(login);
            if (g.inScratch()) {
                AdminSql.run(inScratch, g.template(), values.toArray(String[]::new));
            } else {
                // A setting's rights live in one row for the whole server: another RaceLab may write it now.
                AdminSql.runShared(admin, g.template(), values.toArray(String[]::new));
            }
        }
    }

    /** The named template's rows, asked with {@code names} as its one parameter. */
    private static List<List<String>> query(Connection admin, String template, Set<String> names)
            throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        if (names.isEmpty()) {
            return rows;
        }
        try (PreparedStatement p = admin.prepareStatement(AdminSql.get(template))) {
            p.setArray(1, admin.createArrayOf("text", names.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int c = 1; c <= columns; c++) {
                        row.add(rs.getString(c));
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }
}
