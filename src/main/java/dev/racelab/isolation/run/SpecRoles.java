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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
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
 * <li>While the spec runs, each of its roles is recorded by OID when it is seen to exist: after
 *     each permutation's setup and before its teardown ({@link #witness()}, told by the runner).</li>
 * <li>After the spec, its roles that exist now with an OID recorded are dropped (a teardown may
 *     have failed before its DROP ROLE). A role of one of its names with another OID, or never
 *     seen while it ran, was made by someone else (between the teardown's DROP ROLE and this
 *     cleanup, say): it is left, and said so. What is not guaranteed: a client that creates the
 *     role between the check before the spec and the spec's own CREATE ROLE makes the spec's
 *     CREATE fail, and its role is then recorded as the spec's; nor is the moment between the
 *     OID check and the DROP closed.</li>
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
    /** Each role's OID as first seen while the spec ran, by name; guarded by this. */
    private final Map<String, String> seen = new LinkedHashMap<>();

    private SpecRoles(Set<String> roles, WireConnection lockHolder) {
        this.roles = Set.copyOf(roles);
        this.lockHolder = lockHolder;
    }

    /**
     * Takes the lock for a spec that creates {@code roles} and checks that none of them exists.
     *
     * @param stopped asked while waiting for the lock: true ends the wait
     * @param said   told, in sentences, that the spec waits for another RaceLab's role-creating
     *               spec, and when the lock is not taken in the database {@code postgres}
     * @throws IsolationFailure if one of the roles exists (the message names it), the lock was not
     *                          had within {@link #WAIT_FOR_LOCK}, or the wait was stopped
     * @throws BackendException if the server cannot be reached
     */
    public static SpecRoles claim(Postgres server, String specName, Set<String> roles, BooleanSupplier stopped,
                                  Consumer<String> said) throws IsolationFailure, BackendException {
        if (roles.isEmpty()) {
            return NONE;
        }
        WireConnection c = open(server, specName, said);
        try {
            // The lock lives as long as this session: a server's idle timeouts must not end it.
            c.exec(SQL.get("lock-session"), CONTROL_BOUND);
            long deadline = System.nanoTime() + WAIT_FOR_LOCK.toNanos();
            boolean waiting = false;
            String tryLock = SQL.get("try-roles-lock").replace("$1", Long.toString(LOCK_KEY));
            while (!"t".equals(single(c.exec(tryLock, CONTROL_BOUND)))) {
                if (!waiting) {
                    waiting = true;
                    said.accept("waiting for another RaceLab's role-creating spec on this server to end (specs "
                            + "that create roles run one at a time; this one creates "
                            + String.join(", ", new TreeSet<>(roles)) + ")");
                }
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

    private static WireConnection open(Postgres server, String specName, Consumer<String> said)
            throws BackendException {
        Map<String, String> settings = Map.of("application_name", Postgres.APP_PREFIX + "isolation-roles");
        try {
            return WireConnection.open(server.address(), LOCK_DATABASE, settings, CONTROL_BOUND);
        } catch (WireException first) {
            try {
                WireConnection c = WireConnection.open(server.address(), server.address().database(), settings,
                        CONTROL_BOUND);
                said.accept("the lock that keeps RaceLabs' role-creating specs apart is taken in database "
                        + server.address().database() + ", not postgres (" + first.getMessage() + "): RaceLabs "
                        + "configured with another database are not kept apart from this one");
                return c;
            } catch (WireException e) {
                throw new BackendException(Service.POSTGRES, "could not check the roles spec " + specName
                        + " creates: " + e.getMessage(), e);
            }
        }
    }

    /** The spec's roles that exist on the server now, sorted. */
    private List<String> existing() throws WireException {
        return new ArrayList<>(existingOids().keySet());
    }

    /** The spec's roles that exist on the server now, each with its OID, sorted by name. */
    private Map<String, String> existingOids() throws WireException {
        WireResult r = c().execPrepared(EXISTING, List.of(arrayLiteral(roles)), CONTROL_BOUND);
        if (r == null || r.error() != null) {
            throw new WireException(r == null ? "no answer" : r.error().message());
        }
        Map<String, String> oids = new LinkedHashMap<>();
        r.rows().forEach(row -> oids.put(row.get(0), row.get(1)));
        return oids;
    }

    /**
     * Records the OID of each of the spec's roles that exists now and has none recorded: called
     * while the spec's sessions are between statements (after a setup, before a teardown), when
     * a role of its names that exists is the one it created.
     *
     * @return a sentence when the roles could not be looked at (they may then be left), or null
     */
    public synchronized String witness() {
        if (lockHolder == null) {
            return null;
        }
        try {
            existingOids().forEach(seen::putIfAbsent);
            return null;
        } catch (WireException e) {
            return "the roles the spec creates could not be looked at while it ran: " + e.getMessage();
        }
    }

    /** Told by the spec's runner: records the roles' OIDs after each setup and before each teardown. */
    public IsolationListener witnessing() {
        return new IsolationListener() {
            @Override
            public void setupDone() {
                witness();
            }

            @Override
            public void teardownStarting() {
                witness();
            }
        };
    }

    /**
     * Drops the spec's roles that exist now with the OID recorded while it ran (none existed
     * before it ran). Call after the scratch database is dropped: the objects a role owned there
     * are gone with it.
     *
     * @return the roles left on the server, as sentences naming each: those that could not be
     *         dropped (something outside the scratch database depends on them), and those of the
     *         spec's names that are someone else's (another OID, or never seen while it ran);
     *         empty when none was left or all were dropped
     */
    public synchronized List<String> dropCreated() {
        if (lockHolder == null) {
            return List.of();
        }
        List<String> kept = new ArrayList<>();
        List<String> left = new ArrayList<>();
        try {
            existingOids().forEach((role, oid) -> {
                if (oid.equals(seen.get(role))) {
                    left.add(role);
                } else {
                    kept.add(seen.containsKey(role)
                            ? "role " + role + " exists with OID " + oid + ", not the spec's " + seen.get(role)
                                    + ": it is someone else's, made after the spec dropped its own; left on the server"
                            : "role " + role + " was not seen while the spec ran (after a setup or before a "
                                    + "teardown), so RaceLab cannot tell it is the spec's: left on the server");
                }
            });
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
