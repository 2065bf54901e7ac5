package dev.racelab.engine;

import java.util.function.IntFunction;

/**
 * A run's phase, and what the user does to it while it is live: each change and the event that
 * records it are made together, under one lock, by the control methods and the supervisor alike,
 * so neither can undo the other's change (a pause is never overwritten with RUNNING, an ended run
 * never becomes paused). Whatever the user does (pausing, stepping, changing the gates or the
 * speed of delays) is recorded, so the record alone tells the whole story.
 */
final class RunPhases {

    private final Object lock = new Object();
    /** Written under {@code lock}; read without it. */
    private volatile RunPhase phase = RunPhase.READY;
    private final Recorder recorder;
    private final GateKeeper gates;

    RunPhases(Recorder recorder, GateKeeper gates) {
        this.recorder = recorder;
        this.gates = gates;
    }

    RunPhase now() {
        return phase;
    }

    /** READY to PREPARING, recorded; a run starts once. */
    void prepare(String lab, int workers) {
        synchronized (lock) {
            if (phase != RunPhase.READY) {
                throw new IllegalStateException("a run starts once; this one is " + phase);
            }
            phase = RunPhase.PREPARING;
            recorder.record(Run.RUN_ACTOR, EventKind.RUN_PREPARING, lab, workers);
        }
    }

    /** PREPARING to RUNNING as the workers start (a run paused meanwhile stays paused). */
    void workersStart() {
        synchronized (lock) {
            if (phase == RunPhase.PREPARING) {
                phase = RunPhase.RUNNING;
            }
        }
    }

    /** Halts every worker at the next gate it reaches (step mode). */
    void pause() {
        synchronized (lock) {
            if (phase == RunPhase.RUNNING || phase == RunPhase.PREPARING) {
                gates.enterStepMode();
                phase = RunPhase.PAUSED;
                recorder.record(Run.RUN_ACTOR, EventKind.RUN_PAUSED, null, 1);
            }
        }
    }

    /** Ends step mode: every halted worker goes on; breakpoints still halt. */
    void resume() {
        synchronized (lock) {
            if (phase == RunPhase.PAUSED) {
                gates.resumeAll();
                phase = RunPhase.RUNNING;
                recorder.record(Run.RUN_ACTOR, EventKind.RUN_PAUSED, null, 0);
            }
        }
    }

    /** Releases worker {@code index} (lane {@code actor}), halted at a gate; false if it was not halted. */
    boolean step(int index, int actor) {
        synchronized (lock) {
            // Recorded before the worker goes: its next events come after its step on the record.
            return phase.live() && gates.step(index, () -> recorder.record(actor, EventKind.STEP, null, index));
        }
    }

    /** Replaces the gates; recorded once the run has begun, in the words of {@code workerName}. */
    void setPlan(GatePlan plan, IntFunction<String> workerName) {
        synchronized (lock) {
            if (phase == RunPhase.ENDED || plan.equals(gates.plan())) {
                return;
            }
            gates.setPlan(plan);
            if (phase != RunPhase.READY) {
                recorder.record(Run.RUN_ACTOR, EventKind.GATES, plan.describe(workerName), 0);
            }
        }
    }

    /** Scales every delay: 2.0 makes them twice as long (slow motion), 0.5 half. */
    void setDelayScale(double scale) {
        synchronized (lock) {
            if (scale == gates.delayScale()) {
                return;
            }
            gates.setDelayScale(scale);
            recorder.record(Run.RUN_ACTOR, EventKind.SPEED, null, Math.round(scale * 1000));
        }
    }

    /** A live run goes to STOPPING, recorded with how many workers still run; once. */
    void stopping(long running) {
        synchronized (lock) {
            if (phase.live() && phase != RunPhase.STOPPING) {
                phase = RunPhase.STOPPING;
                recorder.record(Run.RUN_ACTOR, EventKind.RUN_STOPPING, null, running);
            }
        }
    }

    /**
     * Ends the run with {@code result}: the outcome on {@code record} first, so whoever sees
     * RUN_ENDED finds it. With {@code onlyIfReady}, only a run that never started (a stop before
     * it began); answers whether it ended it.
     */
    boolean end(RunRecord record, Outcome result, boolean onlyIfReady) {
        synchronized (lock) {
            if (onlyIfReady && phase != RunPhase.READY) {
                return false;
            }
            record.conclude(result);
            recorder.record(Run.RUN_ACTOR, EventKind.RUN_ENDED, result.verdict().name(), result.verdict().ordinal());
            phase = RunPhase.ENDED;
            return true;
        }
    }
}
