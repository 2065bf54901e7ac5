package dev.racelab.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * Drives a scheduled run: every worker halts at every gate, and one at a time is released to its
 * next gate in the order a {@link Chooser} picks. Before each choice it waits until the run is
 * quiet: every worker halted at a gate, finished, or waiting on a server, which the servers are
 * asked ({@link ServerWaits}), never guessed from time passing. A worker that does none of these
 * within the run's timeout ends the run, said so; a run whose every unfinished worker waits on a
 * server is left to the server (its deadlock detector, a lease running out) and to the run's own
 * judging at its timeout.
 *
 * <p>Threads: {@link #drive} runs on the run's schedule thread; {@link #steps} may be read from
 * any thread.
 */
public final class Steering {

    /** The most workers a schedule can order (the next bit is {@link Schedule#TIME}). */
    public static final int MAX_WORKERS = 63;

    /** What the run's lane says where the schedule ends before the workers do. */
    private static final String UNSCHEDULED = "the schedule ends here: the workers go on unscheduled";
    private static final String AT_REST = "every worker left waits for a message nobody is left to send: the run "
            + "is judged now, as at its timeout";

    /** How long to wait for a worker to settle before asking the servers whether they hold it. */
    private static final long ASK_AFTER_NANOS = 300_000;
    /** How often to look again while every unfinished worker waits on a server. */
    private static final long SERVER_WAIT_NANOS = 5_000_000;

    /**
     * One passage.
     *
     * @param worker  who was released
     * @param enabled who could have been (halted at a gate), as bits
     */
    public record Step(int worker, long enabled) {
    }

    private final GateKeeper gates;
    private final int workers;
    private final long everyone;
    private final Chooser chooser;
    private final IntFunction<String> names;
    private final IntPredicate release;
    private final Recorder recorder;
    private final Runnable resume;
    private final long patienceNanos;
    private final List<Step> steps = Collections.synchronizedList(new ArrayList<>());
    private volatile ServerWaits waits = ServerWaits.NONE;
    /** Set when every worker left waits for a message nobody is left to send. */
    private volatile boolean atRest;

    /**
     * @param release     releases a worker from its gate, on the record (false if the run is over)
     * @param recorder    where time let pass, and the schedule's end, go on the record (the run's lane)
     * @param resume      ends the run's step mode once the schedule ends
     */
    Steering(GateKeeper gates, int workers, Chooser chooser, IntFunction<String> names, IntPredicate release,
             Recorder recorder, Runnable resume, long patienceNanos) {
        if (workers > MAX_WORKERS) {
            throw new IllegalArgumentException("a schedule orders at most " + MAX_WORKERS + " workers, not " + workers);
        }
        this.gates = gates;
        this.workers = workers;
        this.everyone = (1L << workers) - 1;
        this.chooser = chooser;
        this.names = names;
        this.release = release;
        this.recorder = recorder;
        this.resume = resume;
        this.patienceNanos = patienceNanos;
    }

    /** Who to ask whether a worker waits on a server: the scenario's fixtures, once it is open. */
    void askingOf(ServerWaits serverWaits) {
        this.waits = serverWaits;
    }

    /**
     * Whether the schedule found every unfinished worker waiting for a message that no worker is
     * left to send: nothing will move them, so the run is judged now, as it would be at its timeout.
     */
    boolean atRest() {
        return atRest;
    }

    /** Whether {@code e} is the run's lane saying nothing could move the workers any more, and the run was judged. */
    public static boolean judgedAtRest(Event e) {
        return e.actor() == Run.RUN_ACTOR && e.kind() == EventKind.NOTE && AT_REST.equals(e.subject());
    }

    /** Whether {@code e} is the run's lane saying the schedule ended before the workers did. */
    public static boolean ends(Event e) {
        return e.actor() == Run.RUN_ACTOR && e.kind() == EventKind.NOTE
                && (UNSCHEDULED.equals(e.subject()) || AT_REST.equals(e.subject()));
    }

    /** The passages so far, in order. */
    public List<Step> steps() {
        synchronized (steps) {
            return List.copyOf(steps);
        }
    }

    /** The passages so far as a schedule. */
    public Schedule schedule() {
        List<Step> now = steps();
        int[] order = new int[now.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = now.get(i).worker();
        }
        return Schedule.of(order);
    }

    /**
     * Releases workers one at a time until all have finished or the run stops. What stops it
     * otherwise (a schedule that cannot be followed, a worker that never settles, a server that
     * cannot say who waits) is thrown: the run ends ERROR, saying so.
     */
    void drive() {
        try {
            steer();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not tell who waits on the server: " + e.getMessage(), e);
        }
    }

    private void steer() throws Exception {
        int previous = -1;
        long choiceAt = System.nanoTime();
        while (true) {
            GateKeeper.Settled settled = awaitQuiet();
            if (settled == null) {
                return;
            }
            long enabled = settled.halted() | (timed(settled) != 0 ? 1L << Schedule.TIME : 0);
            if (enabled == 0) {
                long left = everyone & ~settled.finished();
                if (left == 0) {
                    return;
                }
                if ((left & ~settled.pushWaits()) == 0) {
                    // Everyone left waits for a message only another of them could send: nothing
                    // can move them any more, and the run is judged now, as at its timeout.
                    recorder.record(Run.RUN_ACTOR, EventKind.NOTE, AT_REST, 0);
                    atRest = true;
                    return;
                }
                // Everyone left waits on a server: only the server, or the run's timeout, moves them.
                gates.awaitChange(settled, SERVER_WAIT_NANOS);
                continue;
            }
            if (Long.bitCount(enabled) > 1) {
                choiceAt = System.nanoTime();
            } else if (System.nanoTime() - choiceAt > patienceNanos) {
                // One way on for the run's timeout (a worker polling for what never comes): the
                // schedule has nothing to choose; the run goes on, for its own judging.
                unschedule();
                return;
            }
            Chooser.Point point = new Chooser.Point(steps.size(), enabled, previous);
            int worker = chooser.choose(point);
            if (worker < 0 || worker > Schedule.TIME || !point.enabled(worker)) {
                throw new IllegalStateException("the schedule chose " + (worker + 1) + ", who is not at a gate");
            }
            steps.add(new Step(worker, point.enabled()));
            if (worker == Schedule.TIME) {
                recorder.record(Run.RUN_ACTOR, EventKind.STEP, Schedule.TIME_WORD, Schedule.TIME);
                if (!letTimePass()) {
                    return;
                }
            } else if (!release.test(worker)) {
                if (gates.settled().stopped()) {
                    return;
                }
                // Left halted, the run would wait for ever: it ends, saying why.
                throw new IllegalStateException(names.apply(worker) + " could not be released from its gate "
                        + "(released by hand?): the schedule cannot go on");
            }
            previous = worker;
        }
    }

    /**
     * Time passes: the workers backing off go on, each after the wait it asked for (passed on the
     * workers' clock at once, {@link WorkerContext#nanoTime}), one at a time in turn, until one of
     * them gets somewhere (a gate, its end, a wait on a server), or another worker does (woken by
     * what time passing let happen: a lease ran out, a permit was handed on); a worker waiting
     * for a pushed message looks again once, and time has passed when all have. Their tries in
     * between are not passages of the schedule: only that time passed is. If nobody gets
     * anywhere within the run's timeout, the schedule ends and the run goes on unscheduled, for its
     * own judging to say what became of it.
     *
     * @return false if the schedule is over
     */
    private boolean letTimePass() throws Exception {
        long deadline = System.nanoTime() + patienceNanos;
        // Asked before time passes: what it runs out is what those waiters are to find.
        boolean timeMatters = waits.timeMatters();
        waits.letTimePass();
        GateKeeper.Settled before = gates.settled();
        // A worker waiting for a pushed message looks again once per time step: if that finds
        // nothing, only a message (or time again) will move it.
        long looked = 0;
        int turn = 0;
        while (System.nanoTime() - deadline < 0) {
            GateKeeper.Settled settled = gates.settled();
            if (settled.stopped()) {
                return false;
            }
            long waiting = timed(settled, timeMatters) & ~looked;
            if (waiting == 0) {
                return true;
            }
            int worker = next(waiting, turn);
            turn = worker + 1;
            if ((settled.pushWaits() & (1L << worker)) != 0) {
                looked |= 1L << worker;
            }
            // Its wait passes on the workers' clock at once: what the worker's deadlines see.
            gates.skip(gates.backingOff(worker));
            if (!gates.step(worker)) {
                continue;
            }
            GateKeeper.Settled after = awaitQuiet();
            if (after == null) {
                return false;
            }
            if ((after.backingOff() & (1L << worker)) == 0 || after.halted() != before.halted()
                    || after.finished() != before.finished()) {
                return true;
            }
        }
        unschedule();
        return false;
    }

    /**
     * Who waits for time to pass now: every worker backing off, and those waiting for a pushed
     * message with a patience of their own, when time passing would change what the servers hold.
     */
    private long timed(GateKeeper.Settled settled) throws Exception {
        boolean pushedTimed = (settled.backingOff() & settled.pushWaits()) != 0;
        return timed(settled, pushedTimed && waits.timeMatters());
    }

    private static long timed(GateKeeper.Settled settled, boolean timeMatters) {
        return timeMatters ? settled.backingOff() : settled.backingOff() & ~settled.pushWaits();
    }

    /** Ends the schedule, on the record: the workers go on as the threads and servers take them. */
    private void unschedule() {
        recorder.record(Run.RUN_ACTOR, EventKind.NOTE, UNSCHEDULED, 0);
        gates.unschedule();
        resume.run();
    }

    /** The first of {@code bits} from {@code from} on, round the workers. */
    private int next(long bits, int from) {
        long after = bits & -(1L << Math.min(from, 63));
        return Long.numberOfTrailingZeros(after != 0 && from < workers ? after : bits);
    }

    /**
     * Waits until no worker is on its way: each halted, finished or waiting on a server. Null if
     * the run is stopping.
     */
    private GateKeeper.Settled awaitQuiet() throws Exception {
        long deadline = System.nanoTime() + patienceNanos;
        GateKeeper.Settled settled = gates.settled();
        while (!settled.stopped()) {
            long moving = everyone & ~settled.halted() & ~settled.backingOff() & ~settled.pushWaits()
                    & ~settled.finished();
            if (moving != 0) {
                GateKeeper.Settled next = gates.awaitChange(settled, ASK_AFTER_NANOS);
                if (!next.equals(settled)) {
                    settled = next;
                    continue;
                }
                long waiting = bits(waits.waiting(names(moving)));
                if ((moving & ~waiting) != 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException(names.apply(Long.numberOfTrailingZeros(moving & ~waiting))
                                + " neither reached its next gate, nor finished, nor waited on a server within "
                                + patienceNanos / 1_000_000 + " ms");
                    }
                    continue;
                }
            }
            if (settled.pushWaits() == 0) {
                return settled;
            }
            // A message on its way would wake a worker waiting for it: let it arrive first.
            waits.settlePushed(names(settled.pushWaits()));
            GateKeeper.Settled after = gates.settled();
            if (after.equals(settled)) {
                return settled;
            }
            settled = after;
        }
        return null;
    }

    private List<String> names(long bits) {
        List<String> list = new ArrayList<>(Long.bitCount(bits));
        for (int w = 0; w < workers; w++) {
            if ((bits & (1L << w)) != 0) {
                list.add(names.apply(w));
            }
        }
        return list;
    }

    private long bits(Set<String> waiting) {
        long bits = 0;
        for (int w = 0; w < workers; w++) {
            if (waiting.contains(names.apply(w))) {
                bits |= 1L << w;
            }
        }
        return bits;
    }
}
