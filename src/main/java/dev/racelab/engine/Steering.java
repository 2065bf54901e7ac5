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

    /** The most workers a schedule can order. */
    public static final int MAX_WORKERS = 64;

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
    private final long patienceNanos;
    private final List<Step> steps = Collections.synchronizedList(new ArrayList<>());
    private volatile ServerWaits waits = ServerWaits.NONE;

    Steering(GateKeeper gates, int workers, Chooser chooser, IntFunction<String> names, IntPredicate release,
             long patienceNanos) {
        if (workers > MAX_WORKERS) {
            throw new IllegalArgumentException("a schedule orders at most " + MAX_WORKERS + " workers, not " + workers);
        }
        this.gates = gates;
        this.workers = workers;
        this.everyone = workers == 64 ? -1L : (1L << workers) - 1;
        this.chooser = chooser;
        this.names = names;
        this.release = release;
        this.patienceNanos = patienceNanos;
    }

    /** Who to ask whether a worker waits on a server: the scenario's fixtures, once it is open. */
    void askingOf(ServerWaits serverWaits) {
        this.waits = serverWaits;
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
        while (true) {
            Quiet quiet = awaitQuiet();
            if (quiet == null) {
                return;
            }
            if (quiet.settled.halted() == 0) {
                if ((quiet.settled.finished() & everyone) == everyone) {
                    return;
                }
                // Everyone left waits on a server: only the server, or the run's timeout, moves them.
                gates.awaitChange(quiet.settled, SERVER_WAIT_NANOS);
                continue;
            }
            Chooser.Point point = new Chooser.Point(steps.size(), quiet.settled.halted(), previous);
            int worker = chooser.choose(point);
            if (worker < 0 || worker >= workers || !point.enabled(worker)) {
                throw new IllegalStateException("the schedule chose " + (worker + 1) + ", who is not at a gate");
            }
            steps.add(new Step(worker, point.enabled()));
            if (!release.test(worker)) {
                return;
            }
            previous = worker;
        }
    }

    /**
     * Waits until no worker is on its way: each halted, finished or waiting on a server. Null if
     * the run is stopping.
     */
    private Quiet awaitQuiet() throws Exception {
        long deadline = System.nanoTime() + patienceNanos;
        GateKeeper.Settled settled = gates.settled();
        while (!settled.stopped()) {
            long moving = everyone & ~settled.halted() & ~settled.finished();
            if (moving == 0) {
                return new Quiet(settled, 0);
            }
            GateKeeper.Settled next = gates.awaitChange(settled, ASK_AFTER_NANOS);
            if (!next.equals(settled)) {
                settled = next;
                continue;
            }
            long waiting = bits(waits.waiting(names(moving)));
            if ((moving & ~waiting) == 0) {
                return new Quiet(settled, waiting);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(names.apply(Long.numberOfTrailingZeros(moving & ~waiting))
                        + " neither reached its next gate, nor finished, nor waited on a server within "
                        + patienceNanos / 1_000_000 + " ms");
            }
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

    private record Quiet(GateKeeper.Settled settled, long waiting) {
    }
}
