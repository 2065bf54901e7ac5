package dev.racelab.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Applies the user's {@link GatePlan} to workers passing gates, and holds workers that must halt.
 *
 * <p>A worker halts at a gate when <em>step mode</em> is on (every worker halts at every gate;
 * pausing a run turns it on) or when its rule there is a breakpoint. A halted worker waits until
 * {@link #step} releases it to run to its next gate, {@link #resumeAll} ends step mode and
 * releases everyone, or the run stops. After halting, a delay in the rule is applied.
 *
 * <p>Threads: workers call {@link #pass}; any thread may call the control methods. The plan is
 * read through a volatile table, so a worker passing a gate with nothing to do takes no lock.
 * Everything about halting is guarded by {@code lock}.
 */
public final class GateKeeper {

    private final List<Gate> gates;
    private final Map<String, Integer> gateIndex = new HashMap<>();
    private final int workers;
    private final Clock clock;
    private final GateDelays delays;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final AtomicReferenceArray<Gate> haltedAt;
    /** Per worker: released by a step and not yet gone. Guarded by {@code lock}. */
    private final boolean[] permit;
    /** Per worker: finished its script. Guarded by {@code lock}. */
    private final boolean[] finished;
    /** Per worker: backing off in a scheduled run, for how long it asked (0: not). Guarded by {@code lock}. */
    private final long[] backingOff;
    /** Per worker: waiting for what a server pushes ({@link PushedWait}), in a scheduled run. Guarded by {@code lock}. */
    private final boolean[] pushWait;
    /** Per worker: something it waits for arrived and it has not looked yet. Guarded by {@code lock}. */
    private final boolean[] arrived;

    private volatile GatePlan plan;
    private volatile GateRule[][] rules;
    private volatile boolean stepMode;
    /** Whether a schedule orders the workers ({@link Steering}): backing off waits for it then. */
    private volatile boolean scheduled;
    /** Time a schedule let pass without waiting for it: the workers' clock runs this far ahead. */
    private final AtomicLong skipped = new AtomicLong();
    /** The run's clock when the schedule began: a scheduled run's workers' clock stands still from it. */
    private volatile long scheduledAt;
    private volatile boolean stopped;

    public GateKeeper(List<Gate> gates, int workers, GatePlan plan, Clock clock) {
        this.gates = List.copyOf(gates);
        for (int i = 0; i < this.gates.size(); i++) {
            gateIndex.put(this.gates.get(i).id(), i);
        }
        this.workers = workers;
        this.clock = clock;
        this.delays = new GateDelays(clock);
        this.haltedAt = new AtomicReferenceArray<>(workers);
        this.permit = new boolean[workers];
        this.finished = new boolean[workers];
        this.backingOff = new long[workers];
        this.pushWait = new boolean[workers];
        this.arrived = new boolean[workers];
        setPlan(plan);
    }

    public List<Gate> gates() {
        return gates;
    }

    public GatePlan plan() {
        return plan;
    }

    /** Replaces the plan; workers follow it from the next gate they reach. */
    public void setPlan(GatePlan plan) {
        GateRule[][] table = new GateRule[gates.size()][workers];
        for (int g = 0; g < gates.size(); g++) {
            for (int w = 0; w < workers; w++) {
                table[g][w] = plan.rule(gates.get(g).id(), w);
            }
        }
        lock.lock();
        try {
            this.plan = plan;
            this.rules = table;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Scales every delay: 2.0 makes them twice as long (slow motion), 0.5 half. */
    public void setDelayScale(double scale) {
        delays.setScale(scale);
    }

    /** The factor every delay is stretched by. */
    public double delayScale() {
        return delays.scale();
    }

    public boolean stepMode() {
        return stepMode;
    }

    /** Turns step mode on: every worker halts at the next gate it reaches. */
    public void enterStepMode() {
        lock.lock();
        try {
            stepMode = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Ends step mode and releases every halted worker; breakpoints still halt. */
    public void resumeAll() {
        lock.lock();
        try {
            stepMode = false;
            for (int w = 0; w < workers; w++) {
                if (haltedAt.get(w) != null) {
                    permit[w] = true;
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Releases one halted worker to run until its next gate.
     *
     * @return false if the worker was not halted at a gate (it may be running, blocked on the
     *         server, or finished), in which case nothing happens
     */
    public boolean step(int worker) {
        return step(worker, () -> { });
    }

    /**
     * As {@link #step(int)}, running {@code first} once the worker is known to be halted and before
     * it is released: what it records comes before anything the worker then does.
     */
    boolean step(int worker, Runnable first) {
        lock.lock();
        try {
            if ((haltedAt.get(worker) == null && backingOff[worker] == 0) || permit[worker]) {
                return false;
            }
            first.run();
            permit[worker] = true;
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The gate {@code worker} is halted at, or null. Safe from any thread without locking. */
    public Gate haltedAt(int worker) {
        return haltedAt.get(worker);
    }

    /** The workers halted at a gate now, in index order. */
    public List<Integer> halted() {
        List<Integer> list = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            if (haltedAt.get(w) != null) {
                list.add(w);
            }
        }
        return list;
    }

    /** Whether some worker is halted or sitting out a delay: time passing without progress is expected. */
    public boolean holdingAnyone() {
        if (delays.anyone()) {
            return true;
        }
        for (int w = 0; w < workers; w++) {
            if (haltedAt.get(w) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits until {@code worker} is halted at a gate or has finished, for at most {@code timeout}
     * of real time.
     *
     * @return the gate it halted at, or null if it finished or the run is stopping
     * @throws TimeoutException if it did neither within {@code timeout}
     */
    public Gate awaitSettled(int worker, Duration timeout) throws InterruptedException, TimeoutException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (haltedAt.get(worker) == null || permit[worker]) {
                if (finished[worker] || stopped) {
                    return null;
                }
                if (left <= 0) {
                    throw new TimeoutException("worker-" + (worker + 1) + " neither halted at a gate nor finished within "
                            + timeout.toMillis() + " ms");
                }
                left = changed.awaitNanos(left);
            }
            return haltedAt.get(worker);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The workers settled now, as bits ({@link Settled}): halted at a gate and not yet released,
     * waiting for time or for a pushed message, or finished. For a scheduled run ({@link
     * Steering}); at most 64 workers.
     */
    Settled settled() {
        lock.lock();
        try {
            return settledNow();
        } finally {
            lock.unlock();
        }
    }

    /** Waits at most {@code nanos} until who is settled differs from {@code seen}; returns it then. */
    Settled awaitChange(Settled seen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            Settled now = settledNow();
            while (now.equals(seen) && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
                now = settledNow();
            }
            return now;
        } finally {
            lock.unlock();
        }
    }

    private Settled settledNow() {
        long halted = 0;
        long waiting = 0;
        long pushed = 0;
        long done = 0;
        for (int w = 0; w < Math.min(workers, 64); w++) {
            if (haltedAt.get(w) != null && !permit[w]) {
                halted |= 1L << w;
            }
            boolean woken = pushWait[w] && arrived[w];
            if (backingOff[w] > 0 && !permit[w] && !woken) {
                waiting |= 1L << w;
            }
            if (pushWait[w] && !permit[w] && !woken) {
                pushed |= 1L << w;
            }
            if (finished[w]) {
                done |= 1L << w;
            }
        }
        return new Settled(halted, waiting, pushed, done, stopped || !scheduled);
    }

    /**
     * Who is halted at a gate, who waits for time to pass (backing off, or waiting for a pushed
     * message with a patience of its own), who waits for a message a server pushes, who finished,
     * as bits, and whether the schedule is over (the run stops, or goes on unscheduled).
     */
    record Settled(long halted, long backingOff, long pushWaits, long finished, boolean stopped) {
    }

    /** A schedule orders the workers from now: a worker backing off waits for it ({@link #backOff}). */
    void schedule() {
        scheduledAt = clock.nanos();
        scheduled = true;
    }

    /** The schedule is over: the workers go on as the threads and servers take them. */
    void unschedule() {
        lock.lock();
        try {
            scheduled = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The workers' clock: the run's, ahead by whatever time a schedule let pass without waiting for
     * it; under a schedule it moves only when the schedule lets time pass, so that what a worker's
     * deadline decides depends on the order of events, not the machine's speed.
     */
    long now() {
        return (scheduled ? scheduledAt : clock.nanos()) + skipped.get();
    }

    /** Lets {@code nanos} pass on the workers' clock at once. */
    void skip(long nanos) {
        skipped.addAndGet(nanos);
    }

    /** How long worker {@code w}, backing off, asked to wait; 0 if it is not backing off. */
    long backingOff(int w) {
        lock.lock();
        try {
            return backingOff[w];
        } finally {
            lock.unlock();
        }
    }

    /** Work that only takes time: slept in a free run, skipped in a scheduled one. */
    void takeTime(long nanos) throws InterruptedException {
        if (stopped) {
            throw new RunStopped();
        }
        if (!scheduled && nanos > 0) {
            clock.sleep(nanos);
        }
    }

    /**
     * A worker waits before trying again (a retry, a poll): for {@code nanos} in a free run; in a
     * scheduled run until the schedule lets time pass for it ({@link Steering}), so that the order
     * of events, not the machine's speed, decides what it finds.
     */
    void backOff(WorkerHandle worker, long nanos) throws InterruptedException {
        if (stopped) {
            throw new RunStopped();
        }
        if (!scheduled) {
            clock.sleep(nanos);
            return;
        }
        awaitStep(worker.index(), Math.max(1, nanos), false);
    }

    /**
     * A worker waits for what a server pushes ({@link PushedWait#await}): in a scheduled run until
     * {@link #arrived} or, for a wait shorter than {@link PushedWait#ENDLESS_NANOS}, until the
     * schedule lets time pass for it.
     */
    PushedWait.End awaitPushed(WorkerHandle worker, long nanos) throws InterruptedException {
        return awaitStep(worker.index(), nanos < PushedWait.ENDLESS_NANOS ? Math.max(1, nanos) : 0, true);
    }

    /**
     * Worker {@code w} waits in a scheduled run until a step lets {@code nanos} pass for it (0:
     * never) or, for a {@code pushed} wait, until what it waits for arrives; at once {@link
     * PushedWait.End#FREE} when no schedule orders the workers.
     */
    private PushedWait.End awaitStep(int w, long nanos, boolean pushed) throws InterruptedException {
        lock.lock();
        try {
            if (stopped) {
                throw new RunStopped();
            }
            if (!scheduled) {
                return PushedWait.End.FREE;
            }
            pushWait[w] = pushed;
            backingOff[w] = nanos;
            changed.signalAll();
            boolean timePassed;
            try {
                while (!permit[w] && !(pushed && arrived[w]) && !stopped && scheduled) {
                    changed.await();
                }
            } finally {
                timePassed = permit[w] && !(pushed && arrived[w]);
                permit[w] = false;
                if (pushed) {
                    arrived[w] = false;
                }
                pushWait[w] = false;
                backingOff[w] = 0;
                changed.signalAll();
            }
            if (stopped) {
                throw new RunStopped();
            }
            return timePassed ? PushedWait.End.TIME_PASSED : scheduled ? PushedWait.End.ARRIVED : PushedWait.End.FREE;
        } finally {
            lock.unlock();
        }
    }

    /** What worker {@code w} waits for arrived: its wait ends now, or its next at once. */
    void arrived(int w) {
        if (!scheduled) {
            // A free run's waits end by themselves: nothing here to wake.
            return;
        }
        lock.lock();
        try {
            arrived[w] = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Releases every halted worker for good: the run is stopping. */
    public void stop() {
        lock.lock();
        try {
            stopped = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void finished(int worker) {
        lock.lock();
        try {
            finished[worker] = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Called by a worker at {@code gate}: halts if it must, then sits out any delay.
     *
     * @throws RunStopped if the run stops while the worker is here
     */
    void pass(WorkerHandle worker, Gate gate) throws InterruptedException {
        if (stopped) {
            throw new RunStopped();
        }
        Integer g = gateIndex.get(gate.id());
        if (g == null) {
            throw new IllegalArgumentException("gate " + gate.id() + " is not one of this lab's gates");
        }
        int w = worker.index();
        if (stepMode || rules[g][w].breakpoint()) {
            halt(worker, gate, g);
        }
        delays.sitOut(worker, gate, rules[g][w], () -> stopped);
    }

    private void halt(WorkerHandle worker, Gate gate, int g) throws InterruptedException {
        int w = worker.index();
        ActorState before = worker.currentState();
        String about = worker.currentSubject();
        lock.lock();
        try {
            haltedAt.set(w, gate);
            worker.state(ActorState.AT_GATE, gate.id());
            changed.signalAll();
            try {
                while (!permit[w] && !stopped && (stepMode || rules[g][w].breakpoint())) {
                    changed.await();
                }
            } finally {
                permit[w] = false;
                haltedAt.set(w, null);
                changed.signalAll();
            }
            if (stopped) {
                throw new RunStopped();
            }
        } finally {
            lock.unlock();
        }
        worker.state(before, about);
    }

    /** Thrown out of a gate when the run stops, to unwind the worker's script. */
    static final class RunStopped extends RuntimeException {
        RunStopped() {
            super("the run was stopped", null, false, false);
        }
    }
}
