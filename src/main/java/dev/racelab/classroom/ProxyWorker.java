package dev.racelab.classroom;

import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.WorkerContext;

/**
 * A lane of the host's run that stands for a participant's worker on another machine: each
 * operation lasts until that worker's operation ends, and meanwhile its events are put on this lane
 * at the time they happened there, on the host's clock ({@link ClassClock}). The lab's oracle counts
 * them as its own ({@link Scenario#relayed}); the {@link Ledger} keeps who wrote what. A
 * participant that leaves, or whose worker stops early, leaves this lane with its operation
 * unfinished, named ({@link LabWorker.Left}).
 */
final class ProxyWorker implements LabWorker {

    private static final long POLL_MILLIS = 50;

    private final WorkerContext context;
    private final ClassHub hub;
    private final ClassPlan.Seat seat;
    private final int worker;
    private final Scenario oracle;
    private final Ledger ledger;
    /** Whether any event of the worker came: one that never began is named so, not as unfinished. */
    private boolean begun;

    ProxyWorker(WorkerContext context, ClassHub hub, ClassPlan.Seat seat, int worker, Scenario oracle, Ledger ledger) {
        this.context = context;
        this.hub = hub;
        this.seat = seat;
        this.worker = worker;
        this.oracle = oracle;
        this.ledger = ledger;
    }

    @Override
    public void operation(int n) throws Exception {
        while (!context.stopping()) {
            EventBatch.Relayed e = hub.next(seat.member(), worker, POLL_MILLIS);
            if (e == null && (hub.left(seat.member()) || hub.done(seat.member()))) {
                // What came with the word that it is done or gone is all here now: take it first.
                e = hub.next(seat.member(), worker, 0);
            }
            if (e == null) {
                if (hub.left(seat.member()) || hub.done(seat.member())) {
                    if (!begun) {
                        String why = hub.failure(seat.member()) != null ? hub.failure(seat.member())
                                : hub.ready(seat.member()) ? "it left before it began" : "it was not ready in time";
                        ledger.neverBegan(seat, why);
                        throw new Left(seat.name() + " could not begin: " + why);
                    }
                    ledger.unfinished(seat, n);
                    throw new Left(seat.name() + (hub.left(seat.member()) ? " left the class" : "'s worker stopped")
                            + " during operation " + (n + 1));
                }
                continue;
            }
            begun = true;
            oracle.relayed(context, e.kind(), e.subject(), e.value());
            ledger.note(seat, worker, e.kind(), e.value());
            // Never in the future; the lane keeps its own order (WorkerContext.relayedAt).
            long at = Math.min(System.nanoTime(), hub.clock().toLocal(e.serverNanos()));
            if (e.kind() == EventKind.OP_END) {
                // The run records the operation's end: when it ended there.
                context.relayedAt(at);
                return;
            }
            context.relay(at, e.kind(), e.subject(), e.value());
        }
    }
}
