package dev.racelab.engine;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's side of one worker: its context, its lab script and what it has done.
 *
 * <p>Fields other than {@code opsDone} are written by the worker's own thread only; {@code
 * opsDone} is read by the supervisor while the worker runs, hence volatile. Everything the worker
 * records counts as {@code progress} for the run: only workers move a run forward, never an
 * observer's report or the engine's own notes.
 */
final class WorkerHandle implements WorkerContext {

    private final int index;
    private final String name;
    private final int actor;
    private final SplittableRandom random;
    private final Recorder recorder;
    private final GateKeeper gates;
    private final Run run;
    private final LongAdder progress;
    private ActorState state = ActorState.IDLE;
    private String subject;
    private volatile long opsDone;
    LabWorker script;

    WorkerHandle(int index, String name, int actor, long seed, Recorder recorder, GateKeeper gates, Run run,
                 LongAdder progress) {
        this.index = index;
        this.name = name;
        this.actor = actor;
        this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        this.recorder = recorder;
        this.gates = gates;
        this.run = run;
        this.progress = progress;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int actor() {
        return actor;
    }

    @Override
    public SplittableRandom random() {
        return random;
    }

    @Override
    public void gate(Gate gate) throws InterruptedException {
        if (gate.isFault()) {
            throw new IllegalArgumentException(gate.id() + " is a fault gate: pass it with fault()");
        }
        gates.pass(this, gate);
    }

    @Override
    public boolean fault(Gate gate) throws InterruptedException {
        if (!gate.isFault()) {
            throw new IllegalArgumentException(gate.id() + " is not a fault gate");
        }
        if (gates.plan().rule(gate.id(), index).isPass()) {
            return false;
        }
        gates.pass(this, gate);
        return true;
    }

    @Override
    public void state(ActorState next, String about) {
        state = next;
        subject = about;
        progress.increment();
        recorder.state(actor, next, about);
    }

    /** What the current state concerns; gates restore it with the state after a delay or halt. */
    String currentSubject() {
        return subject;
    }

    @Override
    public ActorState currentState() {
        return state;
    }

    @Override
    public Event mark(EventKind kind, String subject, long value) {
        progress.increment();
        return recorder.record(actor, kind, subject, value);
    }

    @Override
    public boolean stopping() {
        return run.stopping();
    }

    long opsDone() {
        return opsDone;
    }

    void opDone() {
        opsDone++;
    }
}
