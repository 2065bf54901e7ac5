package dev.racelab.engine.explore;

import dev.racelab.engine.Chooser;
import dev.racelab.engine.Schedule;
import dev.racelab.engine.Steering;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Probabilistic concurrency testing (Burckhardt et al., 2010): each schedule gives the workers
 * random distinct priorities and always releases the highest at a gate; at {@code depth - 1}
 * passages drawn at random the worker released then drops below everyone. A bug of depth d is
 * found with probability at least 1 / (n k^(d-1)) per schedule, for n workers and k passages.
 */
final class Pct implements Search {

    private final SplittableRandom random;
    private final int workers;
    private final int depth;
    /** The most passages a schedule has made so far: where the change points are drawn. */
    private int passages;

    Pct(long seed, int workers, int depth, int passagesGuess) {
        this.random = new SplittableRandom(seed);
        this.workers = workers;
        this.depth = Math.max(1, depth);
        this.passages = Math.max(1, passagesGuess);
    }

    @Override
    public Chooser next() {
        SplittableRandom draw = random.split();
        // One more than the workers: the last is time passing, which has a priority too.
        int[] priority = new int[workers + 1];
        for (int w = 0; w <= workers; w++) {
            priority[w] = depth + w;
        }
        for (int w = workers; w > 0; w--) {
            int other = draw.nextInt(w + 1);
            int swap = priority[w];
            priority[w] = priority[other];
            priority[other] = swap;
        }
        int[] changeAt = new int[depth - 1];
        for (int i = 0; i < changeAt.length; i++) {
            changeAt[i] = draw.nextInt(passages);
        }
        return point -> {
            int best = -1;
            for (int w = 0; w <= workers; w++) {
                if (point.enabled(w == workers ? Schedule.TIME : w) && (best < 0 || priority[w] > priority[best])) {
                    best = w;
                }
            }
            for (int i = 0; i < changeAt.length; i++) {
                if (changeAt[i] == point.step()) {
                    priority[best] = depth - 1 - i;
                }
            }
            return best == workers ? Schedule.TIME : best;
        };
    }

    @Override
    public void ran(List<Steering.Step> steps) {
        passages = Math.max(passages, steps.size());
    }
}
