package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgSessions;
import dev.racelab.engine.WorkerContext;

/**
 * The source article's first try ({@code session-pooled}): every lock call, the work and every
 * unlock on whichever pooled connection is free just then. An unlock that lands on another
 * connection than its lock answers false, and the lock stays where it was taken.
 */
final class PooledWorker extends AdvisoryWorker {

    PooledWorker(WorkerContext context, PgSessions.Session session, String resource, AdvisoryKey key, Setup setup) {
        super(context, session, resource, key, setup);
    }

    @Override
    void request() throws Exception {
        for (int i = 0; i < setup.depth(); i++) {
            boolean granted = take(last -> {
                try (PgSessions.Lease lease = borrow()) {
                    return lock(lease, false, last);
                }
            });
            if (!granted) {
                for (int taken = believed; taken > 0; taken--) {
                    try (PgSessions.Lease lease = borrow()) {
                        unlock(lease);
                    }
                }
                return;
            }
        }
        if (!holdAndWork(null)) {
            return;
        }
        for (int i = 0; i < setup.unlocks(); i++) {
            context.gate(AdvisoryLockLab.BEFORE_UNLOCK);
            try (PgSessions.Lease lease = borrow()) {
                unlock(lease);
            }
        }
    }
}
