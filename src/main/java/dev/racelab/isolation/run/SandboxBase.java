package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What every confined sandbox starts with, before any spec is known: a login of its own ({@link
 * SpecLogin}), its scratch database ({@link ScratchDatabase}), and one login by it, which says that
 * the server lets the spec's sessions in. {@link SpecSandbox#open} makes one for its spec, or takes
 * one a {@link SandboxSupply} made ahead, and gives the spec what it needs beyond it (rights, its
 * roles). Made exactly as {@link SpecSandbox#open} made it before, so a sandbox made ahead confines a
 * spec as one made for it does.
 *
 * <p>Used by one thread at a time: the one that makes it, then the one that takes it.
 */
final class SandboxBase {

    final SpecLogin login;
    final ScratchDatabase scratch;
    /** When the login was made: its password expires {@link SpecSandbox#LEFTOVER_AFTER} after. */
    final long madeNanos;
    /** The sessions the login may have, besides its spare ones. */
    final int sessions;
    /** A connection into the scratch database, as the user's login, to see what a spec left; null until needed. */
    private Connection looking;
    /** What the database holds as made ({@code what-a-spec-left}); null until asked. */
    private String asMade;

    private SandboxBase(SpecLogin login, ScratchDatabase scratch, long madeNanos, int sessions) {
        this.login = login;
        this.scratch = scratch;
        this.madeNanos = madeNanos;
        this.sessions = sessions;
    }

    /**
     * Makes a login that may have {@code sessions} sessions, its scratch database, and logs in as it
     * once; drops leftovers of killed runs on the way (as every sandbox's making does). On a failure
     * whatever was made goes.
     *
     * @throws BackendException the database could not be made, or the server does not let the login in (saying
     *                          what to do)
     */
    static SandboxBase make(Postgres server, Connection admin, SpecGrants.Rights rights, int sessions)
            throws SQLException, BackendException {
        long made = System.nanoTime();
        SpecLogin login = SpecSandbox.createLogin(admin, rights, sessions);
        ScratchDatabase scratch = null;
        try {
            scratch = ScratchDatabase.create(server, login.name().substring(SpecLogin.PREFIX.length()), login.name());
            SpecSandbox.dropLeftoverRoles(server, rights.version());
            SpecSandbox.tryLogin(server, login.address(server.address(), scratch.name()), login.name());
            return new SandboxBase(login, scratch, made, sessions);
        } catch (BackendException | RuntimeException e) {
            new SandboxBase(login, scratch, made, sessions).drop(admin);
            throw e;
        }
    }

    /** The address the spec's sessions log in with. */
    PgAddress sessions(Postgres server) {
        return login.address(server.address(), scratch.name());
    }

    /**
     * The digest of what the scratch database holds ({@code what-a-spec-left}), on a connection kept
     * for asking again ({@link #looking()}).
     */
    String whatIsThere(Postgres server) throws SQLException {
        if (looking == null) {
            looking = server.control("isolation", scratch.name());
        }
        try (PreparedStatement p = looking.prepareStatement(AdminSql.get("what-a-spec-left"))) {
            p.setString(1, login.name());
            p.setString(2, login.name());
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** The digest as made: asked once, ahead when a supply made it ({@link #lookAhead}). */
    String asMade(Postgres server) throws SQLException {
        if (asMade == null) {
            asMade = whatIsThere(server);
        }
        return asMade;
    }

    /** Asks {@link #asMade} now, off the path of the spec that will take it; a failure is asked again then. */
    void lookAhead(Postgres server) {
        try {
            asMade(server);
        } catch (SQLException | RuntimeException e) {
            closeLooking();
        }
    }

    /** The connection {@link #whatIsThere} asks on, or null. */
    Connection looking() {
        return looking;
    }

    void closeLooking() {
        if (looking != null) {
            try {
                looking.close();
            } catch (SQLException e) {
                // Closing: nothing left to do with it.
            }
            looking = null;
        }
    }

    /** Drops it, never taken: the login locked out, its database, then the login (marked: a failure is a leftover). */
    void drop(Connection admin) {
        closeLooking();
        login.lock(admin);
        if (scratch != null) {
            scratch.close();
        }
        try {
            login.drop(admin);
        } catch (SQLException e) {
            // Marked: the next spec run on this server drops it.
        }
    }
}
