package dev.racelab.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The delays the user set at gates: drawn from the rule, stretched by the delay scale (slow
 * motion), sat out by the worker on its lane. Any thread may change the scale; workers sit out
 * their own delays.
 */
final class GateDelays {

    private final Clock clock;
    private final AtomicInteger sittingOut = new AtomicInteger();
    private volatile double scale = 1.0;

    GateDelays(Clock clock) {
        this.clock = clock;
    }

    void setScale(double scale) {
        if (!(scale > 0 && scale <= 100)) {
            throw new IllegalArgumentException("delay scale must be in (0, 100]: " + scale);
        }
        this.scale = scale;
    }

    double scale() {
        return scale;
    }

    /** Whether some worker is sitting out a delay now. */
    boolean anyone() {
        return sittingOut.get() > 0;
    }

    /**
     * Sits out {@code rule}'s delay at {@code gate}, if it has one: the lane shows the worker
     * delayed there, or, at a gate that stretches what the worker is doing, notes by how much.
     *
     * @throws GateKeeper.RunStopped if the run stopped meanwhile
     */
    void sitOut(WorkerHandle worker, Gate gate, GateRule rule, BooleanSupplier stopped) throws InterruptedException {
        if (!rule.delays()) {
            return;
        }
        long nanos = (long) (rule.drawNanos(worker.random()) * scale);
        ActorState before = worker.currentState();
        String about = worker.currentSubject();
        if (gate.stretches()) {
            worker.mark(EventKind.NOTE, "delay at " + gate.id() + ": " + before.label() + " "
                    + Math.round(nanos / 1e6) + " ms longer", nanos / 1_000_000);
        } else {
            worker.state(ActorState.DELAYED, gate.id());
        }
        sittingOut.incrementAndGet();
        try {
            clock.sleep(nanos);
        } finally {
            sittingOut.decrementAndGet();
        }
        if (stopped.getAsBoolean()) {
            throw new GateKeeper.RunStopped();
        }
        if (!gate.stretches()) {
            worker.state(before, about);
        }
    }
}
