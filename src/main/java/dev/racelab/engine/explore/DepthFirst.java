package dev.racelab.engine.explore;

import dev.racelab.engine.Chooser;
import dev.racelab.engine.Schedule;
import dev.racelab.engine.Steering;

import java.util.ArrayList;
import java.util.List;

/**
 * Every schedule with at most {@code bound} preemptions, depth first, without keeping state between
 * runs but the path: each run follows a prefix, then lets the last worker carry on (which preempts
 * nobody); afterwards the deepest choice with an untried worker within the bound is changed. Each
 * run is one leaf of the search tree, so when the search is exhausted the runs are the space,
 * counted exactly, also where the passages vary with the schedule (a retry, a worker blocked).
 */
final class DepthFirst implements Search {

    /** One choice on the current path. */
    private static final class Node {
        long enabled;
        int chosen;
        long tried;
        final int previous;
        final int preemptionsBefore;

        Node(long enabled, int chosen, int previous, int preemptionsBefore) {
            this.enabled = enabled;
            this.chosen = chosen;
            this.tried = 1L << chosen;
            this.previous = previous;
            this.preemptionsBefore = preemptionsBefore;
        }

        boolean preempts(int worker) {
            return new Chooser.Point(0, enabled, previous).preempts(worker);
        }
    }

    private final int bound;
    private final List<Node> path = new ArrayList<>();
    private int[] prefix = new int[0];
    private boolean exhausted;
    private int diverged;

    /** @param bound the most preemptions a schedule may have; {@link Integer#MAX_VALUE} for every schedule */
    DepthFirst(int bound) {
        this.bound = bound;
    }

    @Override
    public Chooser next() {
        if (exhausted) {
            return null;
        }
        return prefix(Schedule.of(prefix));
    }

    /** Follows {@code prefix} where it can, then lets the last worker carry on: no more preemptions. */
    static Chooser prefix(Schedule prefix) {
        return point -> point.step() < prefix.size() && point.enabled(prefix.at(point.step()))
                ? prefix.at(point.step()) : point.carryOn();
    }

    @Override
    public void ran(List<Steering.Step> steps) {
        int kept = Math.min(prefix.length, steps.size());
        boolean same = steps.size() >= prefix.length;
        // Where the run went otherwise than the path (the servers answered differently): the path
        // is kept up to there, the node there takes what the run met, and what follows is rebuilt.
        for (int i = 0; i < kept; i++) {
            Node node = path.get(i);
            Steering.Step step = steps.get(i);
            if (node.enabled != step.enabled() || node.chosen != step.worker()) {
                node.enabled = step.enabled();
                node.chosen = step.worker();
                node.tried |= 1L << step.worker();
                kept = i + 1;
                same = false;
                break;
            }
        }
        if (!same) {
            diverged++;
        }
        while (path.size() > kept) {
            path.remove(path.size() - 1);
        }
        int preemptions = kept == 0 ? 0 : path.get(kept - 1).preemptionsBefore
                + (path.get(kept - 1).preempts(path.get(kept - 1).chosen) ? 1 : 0);
        for (int i = kept; i < steps.size(); i++) {
            Steering.Step step = steps.get(i);
            Node node = new Node(step.enabled(), step.worker(), i == 0 ? -1 : steps.get(i - 1).worker(), preemptions);
            if (node.preempts(step.worker())) {
                preemptions++;
            }
            path.add(node);
        }
        backtrack();
    }

    /** Changes the deepest choice that has an untried worker within the bound; exhausted if none. */
    private void backtrack() {
        for (int d = path.size() - 1; d >= 0; d--) {
            Node node = path.get(d);
            long untried = node.enabled & ~node.tried;
            while (untried != 0) {
                int worker = Long.numberOfTrailingZeros(untried);
                untried &= untried - 1;
                node.tried |= 1L << worker;
                boolean preempts = node.preempts(worker);
                // Unbounded, time passes only when no worker can go on: else it could pass for ever.
                boolean allowed = bound == Integer.MAX_VALUE ? !(worker == Schedule.TIME && preempts)
                        : node.preemptionsBefore + (preempts ? 1 : 0) <= bound;
                if (allowed) {
                    node.chosen = worker;
                    path.subList(d + 1, path.size()).clear();
                    prefix = new int[d + 1];
                    for (int i = 0; i <= d; i++) {
                        prefix[i] = path.get(i).chosen;
                    }
                    return;
                }
            }
            path.remove(d);
        }
        exhausted = true;
    }

    @Override
    public int diverged() {
        return diverged;
    }
}
