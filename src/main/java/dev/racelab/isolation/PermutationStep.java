package dev.racelab.isolation;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One entry of a permutation: a step, and the markers that hold back the report of its completion.
 */
public record PermutationStep(Step step, List<Blocker> blockers) {

    public PermutationStep {
        blockers = List.copyOf(blockers);
    }

    /** A step with no marker. */
    public PermutationStep(Step step) {
        this(step, List.of());
    }

    public String name() {
        return step.name();
    }

    /** As a permutation line writes it: {@code s1a}, {@code s1a(*)}, {@code s1a(s2b notices 2)}. */
    @Override
    public String toString() {
        if (blockers.isEmpty()) {
            return step.name();
        }
        return step.name() + blockers.stream().map(Blocker::toString).collect(Collectors.joining(", ", "(", ")"));
    }
}
