package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgSessions;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.WorkerContext;

import java.sql.SQLException;

/**
 * The session lock done right ({@code session-pinned}): lock, work and unlock on one connection,
 * kept from the first lock to the last unlock. Whatever ends the span early (the work fails, the
 * run stops the worker at a gate), the unlocks still run, in {@code finally}, on that connection,
 * before it goes back to the pool: the fix must not leak the way the broken strategy does. The one
 * exception is the fault gate {@code worker-dies-holding}: a worker that dies there gives its
 * connection back without an unlock on purpose, and believes it holds nothing, so nothing is undone.
 */
final class PinnedWorker extends AdvisoryWorker {

    PinnedWorker(WorkerContext context, PgSessions.Session session, String resource, AdvisoryKey key, Setup setup) {
        super(context, session, resource, key, setup);
    }

    @Override
    void request() throws Exception {
        PgSessions.Lease held = takeOnOwnConnection(false);
        if (held == null) {
            return;
        }
        try (PgSessions.Lease lease = held) {
            Throwable failure = null;
            try {
                // Taken again on the session that holds it: granted at once, a session lock is re-entrant.
                for (int i = 1; i < setup.depth(); i++) {
                    lock(lease, false, true);
                }
                if (!holdAndWork(lease)) {
                    return;
                }
                for (int i = 0; i < setup.unlocks(); i++) {
                    context.gate(AdvisoryLockLab.BEFORE_UNLOCK);
                    unlock(lease);
                }
            } catch (Throwable t) {
                failure = t;
                throw t;
            } finally {
                if (!out) {
                    letGo(lease, failure);
                }
            }
        }
    }

    /**
     * Unlocks on {@code lease} every time this worker still believes it holds its lock there,
     * after {@code failure} (or a stop) cut its span short; nothing after a span that ended
     * normally. An unlock that fails too is added to {@code failure}, which it never hides.
     */
    private void letGo(PgSessions.Lease lease, Throwable failure) throws SQLException {
        if (believed == 0) {
            return;
        }
        context.mark(EventKind.NOTE, context.name() + " lets its lock go on " + AdvisoryScenario.sessionName(lease.pid())
                + " on its way out (" + (context.stopping() ? "the run stopped it" : "its span failed") + ")",
                lease.pid());
        try {
            while (believed > 0) {
                unlock(lease);
            }
        } catch (SQLException | RuntimeException e) {
            // The unlock failed too (its session gone, most likely): the worker has given the
            // lock up all the same; whether its session still holds it is pg_locks' to say.
            believe(0, false);
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }
}
