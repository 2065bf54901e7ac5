package dev.racelab.isolation.run;

import dev.racelab.backend.wire.ServerMessage;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.RoleNames;
import dev.racelab.isolation.RoleStatement;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The roles a spec creates, made and dropped by RaceLab on its behalf under the run's names
 * ({@link RoleNames}): the spec's sessions log in as a role that may not create roles ({@link
 * SpecLogin}), and a role belongs to the whole server, so it must never be one someone else has.
 *
 * <p>A role made for a spec is a plain one ({@link RoleStatement}) that never logs in; the spec's
 * login is made a member of it, so that the spec's {@code SET ROLE} works, and it may create in
 * the scratch database's schema {@code public}, so that the spec may make it a table's owner (as
 * it could have, run by a superuser). It is marked as a leftover after a while like the login.
 * When the spec's teardown drops it, RaceLab first takes back what it granted there; whatever of
 * the spec's roles is left when the run ends is dropped after the scratch database ({@link #dropAll}).
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
    SpecRoles(RoleNames names, Connection admin, Connection inScratch, String member,
              Duration leftoverAfter) {
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
        try (Statement s = admin.createStatement()) {
            if (statement.creates()) {
                String role = s.enquoteIdentifier(statement.roles().get(0), true);
                s.execute("CREATE ROLE " + role + " NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                        + "NOBYPASSRLS " + (statement.inherit() ? "INHERIT" : "NOINHERIT"));
                made.add(statement.roles().get(0));
                s.execute("COMMENT ON ROLE " + role + " IS " + s.enquoteLiteral(SpecLogin.mark(leftoverAfter)));
                s.execute("GRANT " + role + " TO " + s.enquoteIdentifier(member, true));
                try (Statement scratch = inScratch.createStatement()) {
                    scratch.execute("GRANT USAGE, CREATE ON SCHEMA public TO " + role);
                }
                return done("CREATE ROLE");
            }
            List<String> quoted = new ArrayList<>();
            for (String role : statement.roles()) {
                quoted.add(s.enquoteIdentifier(role, true));
                takeBackPublic(role);
            }
            s.execute("DROP ROLE " + (statement.ifExists() ? "IF EXISTS " : "") + String.join(", ", quoted));
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

    /** Takes back the schema rights this run gave {@code role}, if it made it: they would keep it from being dropped. */
    private void takeBackPublic(String role) throws SQLException {
        if (!made.contains(role)) {
            return;
        }
        try (Statement scratch = inScratch.createStatement()) {
            scratch.execute("REVOKE USAGE, CREATE ON SCHEMA public FROM " + scratch.enquoteIdentifier(role, true));
        } catch (SQLException e) {
            // The spec may have dropped schema public: then there is nothing to take back.
        }
    }

    private static WireResult done(String tag) {
        return new WireResult(WireResult.Status.COMMAND_OK, List.of(), List.of(), tag, null, null);
    }

    /**
     * Drops every role made for the spec that its teardown did not drop; call after the scratch
     * database is gone (the objects and rights the roles had there went with it).
     *
     * @return the roles that stay on the server, as sentences naming each; empty when none does
     */
    synchronized List<String> dropAll() {
        List<String> kept = new ArrayList<>();
        for (String role : List.copyOf(made)) {
            try (Statement s = admin.createStatement()) {
                s.execute("DROP ROLE IF EXISTS " + s.enquoteIdentifier(role, true));
                made.remove(role);
            } catch (SQLException e) {
                kept.add("role " + role + ", which RaceLab created for the spec, stays on the server: "
                        + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        return kept;
    }
}
