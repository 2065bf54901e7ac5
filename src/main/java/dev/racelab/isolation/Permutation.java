package dev.racelab.isolation;

import java.util.List;
import java.util.stream.Collectors;

/**
 * An order in which to run steps: each is sent when every earlier step of its session is done and
 * the step before it in this order is done or waits. It need not use every step, and may repeat one.
 */
public record Permutation(List<PermutationStep> steps) {

    public Permutation {
        steps = List.copyOf(steps);
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("a permutation has at least one step");
        }
    }

    /** The step names, space-separated, as the transcript's "starting permutation:" line lists them. */
    public String names() {
        return steps.stream().map(PermutationStep::name).collect(Collectors.joining(" "));
    }

    /** As a permutation line writes it, markers included. */
    @Override
    public String toString() {
        return steps.stream().map(PermutationStep::toString).collect(Collectors.joining(" "));
    }
}
