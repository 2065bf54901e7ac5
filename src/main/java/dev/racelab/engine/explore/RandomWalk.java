package dev.racelab.engine.explore;

import dev.racelab.engine.Chooser;
import dev.racelab.engine.Steering;

import java.util.List;
import java.util.SplittableRandom;

/** A uniformly random worker among those at a gate, at every gate: a seeded sample of the space. */
final class RandomWalk implements Search {

    private final SplittableRandom random;

    RandomWalk(long seed) {
        this.random = new SplittableRandom(seed);
    }

    @Override
    public Chooser next() {
        SplittableRandom walk = random.split();
        return point -> {
            long enabled = point.enabled();
            int pick = walk.nextInt(Long.bitCount(enabled));
            for (int i = 0; i < pick; i++) {
                enabled &= enabled - 1;
            }
            return Long.numberOfTrailingZeros(enabled);
        };
    }

    @Override
    public void ran(List<Steering.Step> steps) {
        // Each walk is independent of the ones before.
    }
}
