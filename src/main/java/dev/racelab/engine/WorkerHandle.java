package dev.racelab.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * The engine's side of one worker: its context, its lab script and what it has done.
 *
 * <p>Every field is written by the worker's own thread only. {@code opsDone} and {@code activity}
 * are read by the supervisor while the worker runs: {@code opsDone} is volatile, {@code activity}
 * (bumped on every event, on the hot path) is written and read opaquely, which is all a counter
 * with one writer needs. Everything the worker records counts as activity: only workers move a run
 * forward, never an observer's report or the engine's own notes.
 */
final class WorkerHandle implements WorkerContext {

    private final int index;
    private final String name;
    private final int actor;
    private final SplittableRandom random;
    private final Recorder recorder;
    private final GateKeeper gates;
    /** Whether the run is stopping: all a worker asks of its run. */
    private final BooleanSupplier runStopping;
    private final PushedWait pushedWait = new PushedWait() {
        @Override
        public End await(long nanos) throws InterruptedException {
            return gates.awaitPushed(WorkerHandle.this, nanos);
        }

        @Override
        public void arrived() {
            gates.arrived(index);
        }
    };
    private ActorState state = ActorState.IDLE;
    private String subject;
    /** The time of the lane's latest event; once it relays another machine's ({@link #relay}), what it records goes there. */
    private long laneAt = Long.MIN_VALUE;
    private boolean relaying;
    private volatile long opsDone;
    @SuppressWarnings("unused") // Through ACTIVITY.
    private long activity;
    LabWorker script;

    private static final VarHandle ACTIVITY;

    static {
        try {
            ACTIVITY = MethodHandles.lookup().findVarHandle(WorkerHandle.class, "activity", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    WorkerHandle(int index, String name, int actor, long seed, Recorder recorder, GateKeeper gates,
                 BooleanSupplier runStopping) {
        this.index = index;
        this.name = name;
        this.actor = actor;
        this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        this.recorder = recorder;
        this.gates = gates;
        this.runStopping = runStopping;
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
    public void takeTime(long nanos) throws InterruptedException {
        gates.takeTime(nanos);
    }

    @Override
    public long nanoTime() {
        return gates.now();
    }

    @Override
    public void backOff(long nanos) throws InterruptedException {
        gates.backOff(this, nanos);
    }

    @Override
    public PushedWait pushedWait() {
        return pushedWait;
    }

    @Override
    public void doneActing() {
        gates.finished(index);
    }

    @Override
    public void state(ActorState next, String about) {
        state = next;
        subject = about;
        bump();
        stamped(EventKind.STATE, about, next.ordinal());
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
        bump();
        return stamped(kind, subject, value);
    }

    /**
     * Records an event of the run's own on this lane: now, or on a lane whose events come from
     * elsewhere, at the time of its latest one (an operation's end, as its worker there said it).
     */
    private Event stamped(EventKind kind, String about, long value) {
        if (relaying) {
            return recorder.recordAt(laneAt, actor, kind, about, value);
        }
        Event e = recorder.record(actor, kind, about, value);
        if (e != null) {
            laneAt = e.nanos();
        }
        return e;
    }

    @Override
    public Event relay(long nanos, EventKind kind, String about, long value) {
        bump();
        relayedAt(nanos);
        if (kind == EventKind.STATE) {
            state = ActorState.byOrdinal(value);
            subject = about;
        }
        return recorder.recordAt(laneAt, actor, kind, about, value);
    }

    /** A lane's events in time order: never before what the lane already shows. */
    @Override
    public void relayedAt(long nanos) {
        relaying = true;
        laneAt = Math.max(laneAt, nanos);
    }

    private void bump() {
        ACTIVITY.setOpaque(this, (long) ACTIVITY.getOpaque(this) + 1);
    }

    /** How many events this worker has recorded: its part of the run's progress. */
    long activity() {
        return (long) ACTIVITY.getOpaque(this);
    }

    @Override
    public boolean stopping() {
        return runStopping.getAsBoolean();
    }

    long opsDone() {
        return opsDone;
    }

    void opDone() {
        opsDone++;
    }
}
