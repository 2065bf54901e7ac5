package dev.racelab.engine.explore;

import dev.racelab.engine.Chooser;
import dev.racelab.engine.Steering;
import dev.racelab.engine.Verdict;

import java.time.Duration;
import java.util.List;

/**
 * From a failing schedule, one with the fewest preemptions (then the fewest passages) that fails
 * the same way (the same verdict), found by running candidates on the servers:
 *
 * <ol>
 *   <li>each preemption of the failure in turn is taken back (the worker before carries on from
 *       there, as a schedule with no more preemptions), kept if the run still fails so;</li>
 *   <li>then every schedule with fewer preemptions than what is left is run, bound by bound from
 *       none, until one fails so: the first found has the fewest;</li>
 *   <li>the result is followed once more, passage for passage, as a recording of it would be.</li>
 * </ol>
 *
 * A failure that an exhausted enumeration found is already the one with the fewest preemptions (the
 * enumeration ran every schedule with fewer): only the last step is done.
 */
final class Shrinker {

    private final Explorer explorer;
    private final Duration budget;
    private int candidates;
    /** Whether a candidate's run broke (ERROR): it said nothing of whether that schedule fails so. */
    private boolean inconclusive;

    Shrinker(Explorer explorer, Duration budget) {
        this.explorer = explorer;
        this.budget = budget;
    }

    Exploration.Shrunk shrink(Found failure, boolean fewestAlready) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        Found best = failure;
        boolean fewest = fewestAlready || failure.preemptions() == 0;
        if (!fewest) {
            best = takeBackPreemptions(failure, deadline);
            fewest = best.preemptions() == 0;
            for (int bound = 0; bound < best.preemptions() && !fewest; bound++) {
                Found lower = firstFailureWithin(bound, failure, deadline);
                if (lower == null && outOfTime(deadline)) {
                    break;
                }
                if (lower != null) {
                    best = lower;
                    fewest = !inconclusive;
                    break;
                } else if (bound == best.preemptions() - 1) {
                    fewest = !inconclusive;
                }
            }
        }
        Explorer.Ran again = explorer.follow(best.schedule());
        if (again == null) {
            return new Exploration.Shrunk(best, fewest, candidates, false, null);
        }
        candidates++;
        boolean confirmed = again.found().verdict() == best.verdict() && again.found().schedule().equals(best.schedule());
        // Confirmed, it is shown as the run its recording keeps; else as it was found.
        Found shown = confirmed ? new Found(best.index(), best.schedule(), best.preemptions(), best.verdict(),
                again.found().headline(), again.found().interleaving()) : best;
        return new Exploration.Shrunk(shown, fewest, candidates, confirmed, again.record());
    }

    /** Takes back the failure's preemptions one at a time, keeping each change that still fails so. */
    private Found takeBackPreemptions(Found failure, long deadline) throws InterruptedException {
        Explorer.Ran best = null;
        Found current = failure;
        boolean changed = true;
        while (changed && current.preemptions() > 0 && !outOfTime(deadline)) {
            changed = false;
            List<Steering.Step> steps = best == null ? stepsOf(current) : best.steps();
            int previous = -1;
            for (int i = 0; i < steps.size() && !changed && !outOfTime(deadline); i++) {
                Steering.Step step = steps.get(i);
                boolean preempts = new Chooser.Point(i, step.enabled(), previous).preempts(step.worker());
                previous = step.worker();
                if (!preempts) {
                    continue;
                }
                Explorer.Ran ran = explorer.run(DepthFirst.prefix(current.schedule().prefix(i)), explorer.spec());
                if (ran == null) {
                    return current;
                }
                counted(ran);
                if (ran.found().verdict() == failure.verdict() && ran.found().simplerThan(current)) {
                    best = ran;
                    current = ran.found();
                    changed = true;
                }
            }
        }
        return current;
    }

    /** The steps of a failure found earlier, by following its schedule again. */
    private List<Steering.Step> stepsOf(Found found) throws InterruptedException {
        Explorer.Ran ran = explorer.run(DepthFirst.prefix(found.schedule()), explorer.spec());
        if (ran == null) {
            return List.of();
        }
        counted(ran);
        return ran.steps();
    }

    /** The first schedule with at most {@code bound} preemptions that fails as {@code failure} did, or null. */
    private Found firstFailureWithin(int bound, Found failure, long deadline) throws InterruptedException {
        DepthFirst search = new DepthFirst(bound);
        Chooser chooser;
        while ((chooser = search.next()) != null) {
            if (outOfTime(deadline)) {
                return null;
            }
            Explorer.Ran ran = explorer.run(chooser, explorer.spec());
            if (ran == null) {
                return null;
            }
            counted(ran);
            search.ran(ran.steps());
            if (ran.found().verdict() == failure.verdict()) {
                return ran.found();
            }
        }
        return null;
    }

    private void counted(Explorer.Ran ran) {
        candidates++;
        if (ran.found().verdict() == Verdict.ERROR) {
            inconclusive = true;
        }
    }

    private boolean outOfTime(long deadline) {
        return explorer.cancelled() || System.nanoTime() - deadline > 0;
    }
}
