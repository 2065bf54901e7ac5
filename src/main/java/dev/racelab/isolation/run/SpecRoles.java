package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.backend.wire.WireConnection;
import dev.racelab.backend.wire.WireException;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.engine.Service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * The roles one spec creates ({@link dev.racelab.isolation.ServerReach#createdRoles()}), held for
 * its run. Roles belong to the whole server, so the scratch database does not confine them:
 *
 * <ul>
 * <li>A spec that creates roles runs only while it holds a session advisory lock of RaceLab's,
 *     so two RaceLabs sharing a server never run such specs at once (they could create and drop
 *     one another's roles of the same name). Advisory locks are per database: the lock is taken in
 *     the database {@code postgres}, which every RaceLab on the server reaches whatever database
 *     it is configured with; only when that one cannot be reached is it taken in the configured
 *     one (then RaceLabs configured with different databases are not kept apart).</li>
 * <li>Before the spec runs, none of its roles may exist: a spec whose setup creates role x,
 *     where x is someone's already, would drop it in its teardown. It is refused, naming x.</li>
 * <li>After the spec, exactly its roles that exist now are dropped (they did not before, and no
 *     other RaceLab made them meanwhile): a teardown may have failed before its DROP ROLE.</li>
 * </ul>
 *
 * <p>A spec that creates no role takes no lock and touches no role. Used by one thread; the
 * connection is held from {@link #claim} to {@link #close}.
 */
public final class SpecRoles implements AutoCloseable {

    private static final SqlFile SQL = SqlFile.load(SpecRoles.class, "isolation.sql");
    /** "RaceLabR" in ASCII: the lock only RaceLab's role-creating specs take. */
    static final long LOCK_KEY = 0x52_61_63_65_4c_61_62_52L;
    private static final String LOCK_DATABASE = "postgres";
    private static final Duration CONTROL_BOUND = Duration.ofSeconds(10);
    /** How long a spec waits for another RaceLab's role-creating spec to end. */
    private static final Duration WAIT_FOR_LOCK = Duration.ofMinutes(5);
    private static final long RETRY_MILLIS = 100;
    private static final String EXISTING = "racelab_roles_existing";
    private static final String DROP = "racelab_drop_role";
    private static final SpecRoles NONE = new SpecRoles(Set.of(), null);

    private final Set<String> roles;
    private final WireConnection lockHolder;

    private SpecRoles(Set<String> roles, WireConnection lockHolder) {
        this.roles = Set.copyOf(roles);
        this.lockHolder = lockHolder;
    }

    /**
     * Takes the lock for a spec that creates {@code roles} and checks that none of them exists.
     *
     * @param stopped asked while waiting for the lock: true ends the wait
     * @throws IsolationFailure if one of the roles exists (the message names it), the lock was not
     *                          had within {@link #WAIT_FOR_LOCK}, or the wait was stopped
     * @throws BackendException if the server cannot be reached
     */
    public static SpecRoles claim(Postgres server, String specName, Set<String> roles, BooleanSupplier stopped)
            throws IsolationFailure, BackendException {
        if (roles.isEmpty()) {
            return NONE;
        }
        WireConnection c = open(server, specName);
        try {
            long deadline = System.nanoTime() + WAIT_FOR_LOCK.toNanos();
            while (!"t".equals(single(c.exec("SELECT pg_catalog.pg_try_advisory_lock(" + LOCK_KEY + ")",
                    CONTROL_BOUND)))) {
                if (stopped.getAsBoolean()) {
                    throw new IsolationFailure("stopped");
                }
                if (System.nanoTime() > deadline) {
                    throw new IsolationFailure("another RaceLab on this server ran a spec that creates roles for "
                            + WAIT_FOR_LOCK.toMinutes() + " minutes: specs that create roles run one at a time on "
                            + "a server, and this one (it creates " + String.join(", ", new TreeSet<>(roles))
                            + ") gave up waiting");
                }
                Thread.sleep(RETRY_MILLIS);
            }
            SpecRoles held = new SpecRoles(roles, c);
            c.prepare(EXISTING, SQL.get("roles-existing"), CONTROL_BOUND);
            c.prepare(DROP, SQL.get("drop-role"), CONTROL_BOUND);
            List<String> existing = held.existing();
            if (!existing.isEmpty()) {
                throw new IsolationFailure(existing.stream().map(r -> "role " + r + " exists on this server; the spec "
                        + "would drop it").reduce((a, b) -> a + "; " + b).orElseThrow()
                        + " (it creates that role and drops it after): refused, nothing ran");
            }
            return held;
        } catch (WireException e) {
            c.close();
            throw new BackendException(Service.POSTGRES, "could not check the roles spec " + specName
                    + " creates: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            c.close();
            Thread.currentThread().interrupt();
            throw new IsolationFailure("stopped", e);
        } catch (IsolationFailure | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private static WireConnection open(Postgres server, String specName) throws BackendException {
        Map<String, String> settings = Map.of("application_name", Postgres.APP_PREFIX + "isolation-roles");
        try {
            return WireConnection.open(server.address(), LOCK_DATABASE, settings, CONTROL_BOUND);
        } catch (WireException first) {
            try {
                return WireConnection.open(server.address(), server.address().database(), settings, CONTROL_BOUND);
            } catch (WireException e) {
                throw new BackendException(Service.POSTGRES, "could not check the roles spec " + specName
                        + " creates: " + e.getMessage(), e);
            }
        }
    }

    /** The spec's roles that exist on the server now, sorted. */
    private List<String> existing() throws WireException {
        WireResult r = c().execPrepared(EXISTING, List.of(arrayLiteral(roles)), CONTROL_BOUND);
        if (r == null || r.error() != null) {
            throw new WireException(r == null ? "no answer" : r.error().message());
        }
        List<String> names = new ArrayList<>();
        r.rows().forEach(row -> names.add(row.get(0)));
        return names;
    }

    /**
     * Drops the spec's roles that exist now (none did before it ran). Call after the scratch
     * database is dropped: the objects a role owned there are gone with it.
     *
     * @return the roles that could not be dropped (something outside the scratch database depends
     *         on them), as sentences naming each; empty when none was left or all were dropped
     */
    public List<String> dropCreated() {
        if (lockHolder == null) {
            return List.of();
        }
        List<String> kept = new ArrayList<>();
        List<String> left;
        try {
            left = existing();
        } catch (WireException e) {
            return List.of("the roles the spec creates (" + String.join(", ", new TreeSet<>(roles)) + ") could not "
                    + "be checked, and may stay on the server: " + e.getMessage());
        }
        for (String role : left) {
            try {
                String statement = single(c().execPrepared(DROP, List.of(role), CONTROL_BOUND));
                WireResult dropped = c().exec(statement, CONTROL_BOUND);
                if (dropped.error() != null) {
                    kept.add("role " + role + ", which the spec created, stays on the server: "
                            + dropped.error().message());
                }
            } catch (WireException e) {
                kept.add("role " + role + ", which the spec created, stays on the server: " + e.getMessage());
            }
        }
        return kept;
    }

    private WireConnection c() {
        return lockHolder;
    }

    /** Ends the session, which releases its advisory lock. */
    @Override
    public void close() {
        if (lockHolder != null) {
            lockHolder.close();
        }
    }

    private static String single(WireResult r) throws WireException {
        if (r == null || r.error() != null || r.rows().size() != 1) {
            throw new WireException(r == null ? "no answer" : r.error() != null ? r.error().message()
                    : "expected one row, got " + r.rows().size());
        }
        return r.rows().get(0).get(0);
    }

    /** A {@code text[]} literal: each name double-quoted, its quotes and backslashes escaped. */
    private static String arrayLiteral(Set<String> names) {
        StringBuilder array = new StringBuilder("{");
        for (String name : names) {
            if (array.length() > 1) {
                array.append(',');
            }
            array.append('"').append(name.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return array.append('}').toString();
    }
}
