package dev.racelab.isolation.run;

import dev.racelab.backend.SqlFile;
import dev.racelab.backend.wire.WireConnection;
import dev.racelab.backend.wire.WireException;
import dev.racelab.backend.wire.WireResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The questions a spec run asks on its control connection about its sessions' waits, as
 * isolationtester does: whether a session waits for a lock held by another of the spec's
 * (prepared once, asked each poll), and, for the window, who holds it up.
 */
final class LockWaits {

    private static final SqlFile SQL = SqlFile.load(LockWaits.class, "isolation.sql");
    private static final String IS_BLOCKED = "racelab_isolation_is_blocked";
    private static final String BLOCKED_BY = "racelab_isolation_blocked_by";
    /** How long RaceLab's own questions on the control connection may take. */
    static final Duration CONTROL_BOUND = Duration.ofSeconds(10);

    private final WireConnection control;
    /** The session names by their server process. */
    private final Map<Integer, String> sessions;
    private final String pidArray;
    private final boolean findBlockers;

    private LockWaits(WireConnection control, Map<Integer, String> sessions, boolean findBlockers) {
        this.control = control;
        this.sessions = sessions;
        this.findBlockers = findBlockers;
        this.pidArray = sessions.keySet().stream().map(String::valueOf).collect(Collectors.joining(",", "{", "}"));
    }

    /** Prepares the questions on {@code control} for the sessions named by their pids in {@code sessions}. */
    static LockWaits prepare(WireConnection control, Map<Integer, String> sessions, boolean findBlockers)
            throws WireException {
        control.prepare(IS_BLOCKED, SQL.get("is-blocked"), CONTROL_BOUND);
        if (findBlockers) {
            control.prepare(BLOCKED_BY, SQL.get("blocked-by"), CONTROL_BOUND);
        }
        return new LockWaits(control, sessions, findBlockers);
    }

    /** Whether {@code pid} waits for a lock another of the spec's sessions holds. */
    boolean blocked(int pid) throws IsolationFailure {
        try {
            WireResult r = control.execPrepared(IS_BLOCKED, List.of(String.valueOf(pid), pidArray), CONTROL_BOUND);
            return r != null && r.rows().size() == 1 && "t".equals(r.rows().get(0).get(0));
        } catch (WireException e) {
            throw new IsolationFailure("lock wait query failed: " + e.getMessage(), e);
        }
    }

    /** Who holds {@code pid} up, as session names (or "PID n" for a process that is no session); none unless asked. */
    List<String> blockers(int pid) throws IsolationFailure {
        if (!findBlockers) {
            return List.of();
        }
        try {
            WireResult r = control.execPrepared(BLOCKED_BY, List.of(String.valueOf(pid)), CONTROL_BOUND);
            String array = r == null || r.rows().isEmpty() ? null : r.rows().get(0).get(0);
            List<String> names = new ArrayList<>();
            if (array != null && array.length() > 2) {
                for (String p : array.substring(1, array.length() - 1).split(",")) {
                    String name = name(Integer.parseInt(p.strip()));
                    if (!names.contains(name)) {
                        names.add(name);
                    }
                }
            }
            return names;
        } catch (WireException | NumberFormatException e) {
            throw new IsolationFailure("asking who blocks a step failed: " + e.getMessage(), e);
        }
    }

    /** The session whose server process is {@code pid}, or "PID n". */
    String name(int pid) {
        String session = sessions.get(pid);
        return session != null ? session : "PID " + pid;
    }
}
