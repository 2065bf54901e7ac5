package dev.racelab.isolation.run;

import dev.racelab.isolation.PermutationStep;
import dev.racelab.isolation.Step;

/**
 * A step sent in one run of a permutation.
 *
 * @param entry    the step and its markers, as the permutation lists it
 * @param position its place in the permutation, 0-based
 * @param session  the name of its session
 */
public record LaunchedStep(PermutationStep entry, int position, String session) {

    public Step step() {
        return entry.step();
    }

    public String name() {
        return entry.name();
    }
}
