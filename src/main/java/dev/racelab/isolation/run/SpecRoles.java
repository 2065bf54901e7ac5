package dev.racelab.isolation.run;

import dev.racelab.backend.wire.ServerMessage;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.RoleNames;
import dev.racelab.isolation.RoleStatement;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The roles a spec creates, made and dropped by RaceLab on its behalf under the run's names
 * ({@link RoleNames}): the spec's sessions log in as a role that may not create roles ({@link
 * SpecLogin}), and a role belongs to the whole server, so it must never be one someone else has.
 * Only the run's names are ever created or dropped here, whatever statement comes.
 *
 * <p>A role made for a spec is a plain one ({@link RoleStatement}) that never logs in, made and
 * marked as a leftover (like the login) in one transaction; the spec's login is made a member of
 * it, so that the spec's {@code SET ROLE} works, and it may create in the scratch database's schema
 * {@code public}, so that the spec may make it a table's owner (as it could have, run by a
 * superuser). When the spec's teardown drops it, RaceLab first takes back what it granted there;
 * whatever of the spec's roles is left when the run ends is dropped after the scratch database
 * ({@link #dropAll}).
 *
 * <p>Used by the runner's thread while the spec runs ({@link #carryOut}) and by the owner of the
 * run after it; the connections belong to the {@link SpecSandbox}.
 */
final class SpecRoles implements SpecSql {

    private final RoleNames names;
    private final Connection admin;
    /** A connection of the admin's to the scratch database. */
    private final Connection inScratch;
    private final String member;
    private final Duration leftoverAfter;
    /** The run's names of the roles made so far and not dropped by the spec; guarded by this. */
    private final Set<String> made = new LinkedHashSet<>();

    /**
     * @param member the role the spec's sessions log in as, made a member of every role made
     */
    SpecRoles(RoleNames names, Connection admin, Connection inScratch, String member, Duration leftoverAfter) {
        this.names = names;
        this.admin = admin;
        this.inScratch = inScratch;
        this.member = member;
        this.leftoverAfter = leftoverAfter;
    }

    @Override
    public String step(String sql) {
        return names.rewrite(sql);
    }

    @Override
    public List<RoleNames.Piece> block(String sql) throws IsolationFailure {
        try {
            return names.pieces(sql);
        } catch (RoleStatement.Unsupported e) {
            // ServerReach refuses such a spec before it runs; here only if a caller skipped that.
            throw new IsolationFailure(e.getMessage(), e);
        }
    }

    @Override
    public synchronized WireResult carryOut(RoleStatement statement) throws IsolationFailure {
        if (!names.all().values().containsAll(statement.roles())) {
            throw new IsolationFailure("RaceLab carries out role statements only for the roles the spec creates, "
                    + "under the run's names: not for " + statement.roles());
        }
        try {
            if (statement.creates()) {
                create(statement.roles().get(0), statement.inherit());
                return done("CREATE ROLE");
            }
            statement.roles().forEach(this::takeBackPublic);
            AdminSql.run(admin, "drop-roles", String.valueOf(statement.ifExists()),
                    "{" + String.join(",", statement.roles().stream().map(SpecRoles::element).toList()) + "}");
            statement.roles().forEach(made::remove);
            return done("DROP ROLE");
        } catch (SQLException e) {
            ServerMessage error = ServerMessage.of(e);
            if (error == null) {
                throw new IsolationFailure("RaceLab could not carry out the spec's role statement: "
                        + e.getMessage(), e);
            }
            return new WireResult(WireResult.Status.FATAL_ERROR, List.of(), List.of(), null, error, null);
        }
    }

    /**
     * Makes the role, marks it and makes the spec's login its member, all or nothing; then lets it
     * create in schema public.
     */
    private void create(String role, boolean inherit) throws SQLException {
        AdminSql.inTransaction(admin, () -> {
            AdminSql.run(admin, "create-spec-role", role, String.valueOf(inherit));
            AdminSql.run(admin, "mark-role", role, SpecLogin.mark(admin, leftoverAfter));
            AdminSql.run(admin, "grant-role", role, member);
        });
        made.add(role);
        AdminSql.run(inScratch, "public-schema-grant", role);
    }

    /** A text[] element: double-quoted, its quotes and backslashes escaped. */
    private static String element(String name) {
        return '"' + name.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /**
     * Takes back the schema rights this run gave {@code role}, if it made it: they would keep it
     * from being dropped.
     */
    private void takeBackPublic(String role) {
        if (!made.contains(role)) {
            return;
        }
        try {
            AdminSql.run(inScratch, "public-schema-revoke", role);
        } catch (SQLException e) {
            // The spec may have dropped schema public: then there is nothing to take back.
        }
    }

    private static WireResult done(String tag) {
        return new WireResult(WireResult.Status.COMMAND_OK, List.of(), List.of(), tag, null, null);
    }

    /**
     * Drops every role made for the spec that its teardown did not drop, on {@code admin}; call
     * after the scratch database is gone (the objects and rights the roles had there went with it).
     *
     * @return the roles that stay on the server, as sentences naming each; empty when none does
     */
    synchronized List<String> dropAll(Connection admin) {
        List<String> kept = new ArrayList<>();
        for (String role : List.copyOf(made)) {
            try {
                AdminSql.run(admin, "drop-role-if-exists", role);
                made.remove(role);
            } catch (SQLException e) {
                kept.add("role " + role + ", which RaceLab created for the spec, stays on the server: "
                        + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        return kept;
    }
}
