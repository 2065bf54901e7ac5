package dev.racelab.isolation;

import java.util.List;

/**
 * One connection of a spec and the steps it may run, in the order a session runs them.
 *
 * @param name     what the transcript prefixes its notices with
 * @param setup    SQL the session runs before each permutation, or null
 * @param steps    at least one
 * @param teardown SQL the session runs after each permutation, or null
 */
public record Session(String name, String setup, List<Step> steps, String teardown) {

    public Session {
        steps = List.copyOf(steps);
    }
}
