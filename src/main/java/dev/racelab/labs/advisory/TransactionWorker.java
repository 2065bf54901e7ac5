package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgSessions;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.WorkerContext;

import java.sql.Connection;

/**
 * The article's fix ({@code xact-lock}): BEGIN; the transaction-level lock; the work; COMMIT,
 * which releases it. Nothing is ever unlocked: the end of the transaction, a commit or the
 * pool's rollback of a connection given back mid-transaction, takes every lock it took with it.
 */
final class TransactionWorker extends AdvisoryWorker {

    TransactionWorker(WorkerContext context, PgSessions.Session session, String resource, AdvisoryKey key,
                      Setup setup) {
        super(context, session, resource, key, setup);
    }

    @Override
    void request() throws Exception {
        PgSessions.Lease held = takeOnOwnConnection(true);
        if (held == null) {
            return;
        }
        int pid = held.pid();
        try (PgSessions.Lease lease = held) {
            Connection c = lease.connection();
            for (int i = 1; i < setup.depth(); i++) {
                lock(lease, true, true);
            }
            if (holdAndWork(lease)) {
                context.gate(AdvisoryLockLab.BEFORE_UNLOCK);
                leave();
                context.state(ActorState.HOLDING, resource + " · committing on " + AdvisoryScenario.sessionName(pid));
                c.commit();
                c.setAutoCommit(true);
                endOfTransaction(pid, "the commit released it");
                return;
            }
        } catch (Exception | Error e) {
            // Its span ended early (the work or the commit failed, or the run stopped it at a
            // gate): the lease closed as the exception left the block, the pool rolled the
            // transaction back, and the lock went with it. Said so, or the panel would show a
            // lock the worker no longer has.
            leave();
            endOfTransaction(pid, "the pool rolled " + AdvisoryScenario.sessionName(pid) + "'s transaction back as "
                    + (context.stopping() ? "the run stopped " + context.name() : context.name() + "'s span failed")
                    + ": the transaction-level lock went with it");
            throw e;
        }
        // Dead: the lease closed without a commit, and the pool rolled its transaction back.
        context.mark(EventKind.NOTE, "the pool rolled back " + AdvisoryScenario.sessionName(pid) + "'s transaction as it "
                + "took the connection back: the transaction-level lock went with it", pid);
    }

    /** The transaction ended: every transaction-level lock it held is gone. */
    private void endOfTransaction(int pid, String how) {
        int had = believed;
        for (int i = 0; i < had; i++) {
            context.mark(EventKind.LOCK_RELEASED, resource, pid);
        }
        believe(0, true);
        if (had > 0) {
            context.mark(EventKind.NOTE, how + (had > 1 ? " (all " + had + " of them)" : ""), had);
        }
    }
}
