package dev.racelab.labs.support;

import dev.racelab.engine.Gate;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;

import java.util.List;
import java.util.Set;

/**
 * What a lab says of itself to the lab list and the command line, stated once: its names, its
 * servers, its strategies and gates, and its workers.
 *
 * @param id         what the command line calls it: {@code counter}
 * @param title      a title for the window's list: "Lost increments"
 * @param story      one line telling the lab's story
 * @param services   the servers its workers talk to
 * @param strategies broken ones first
 * @param gates      the named points in the worker script, in the order a worker meets them
 * @param crew       who the workers are and how many there may be
 * @param defaultOps operations per worker when none are asked for
 */
public record LabProfile(String id, String title, String story, Set<Service> services, List<Strategy> strategies,
                         List<Gate> gates, Crew crew, int defaultOps) {

    public LabProfile {
        services = Set.copyOf(services);
        strategies = List.copyOf(strategies);
        gates = List.copyOf(gates);
        if (strategies.isEmpty()) {
            throw new IllegalArgumentException(id + " needs at least one strategy");
        }
        if (defaultOps < 1) {
            throw new IllegalArgumentException(id + ": default operations must be positive");
        }
    }

    /**
     * The lab's workers.
     *
     * @param role    what a worker is called: {@code client}, {@code philosopher}
     * @param usually how many a run has when none are asked for
     * @param fewest  the smallest number that makes sense
     * @param most    the largest number the lab supports
     */
    public record Crew(String role, int usually, int fewest, int most) {

        public Crew {
            if (fewest < 1 || usually < fewest || most < usually) {
                throw new IllegalArgumentException("a crew of " + role + "s needs 1 ≤ fewest ≤ usually ≤ most");
            }
        }
    }
}
