package dev.racelab.engine;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a lab says of itself, stated once: its names, its servers, its strategies, gates and
 * switches, and its workers. The lab list, the command line ({@code list}, option checking), the
 * window's controls and recordings all read it.
 *
 * @param id         what the command line calls it: {@code counter}
 * @param title      a title for the window's list: "Lost increments"
 * @param story      one line telling the lab's story
 * @param services   the servers its workers talk to
 * @param strategies broken ones first; the first broken one is the default
 * @param gates      the named points in the worker script, in the order a worker meets them
 * @param crew       who the workers are and how many there may be
 * @param defaultOps operations per worker when none are asked for
 * @param switches   the lab's own settings, in the order the window shows them
 */
public record LabProfile(String id, String title, String story, Set<Service> services,
                         List<? extends Strategy> strategies, List<Gate> gates, Crew crew, int defaultOps,
                         List<Switch<?>> switches) {

    public LabProfile {
        services = Set.copyOf(services);
        strategies = List.copyOf(strategies);
        gates = List.copyOf(gates);
        switches = List.copyOf(switches);
        if (strategies.isEmpty()) {
            throw new IllegalArgumentException(id + " needs at least one strategy");
        }
        if (defaultOps < 1) {
            throw new IllegalArgumentException(id + ": default operations must be positive");
        }
        unique(id, "strategy", strategies.stream().map(Strategy::id).toList());
        unique(id, "gate", gates.stream().map(Gate::id).toList());
        unique(id, "switch", switches.stream().map(Switch::name).toList());
    }

    /** A profile without switches. */
    public LabProfile(String id, String title, String story, Set<Service> services,
                      List<? extends Strategy> strategies, List<Gate> gates, Crew crew, int defaultOps) {
        this(id, title, story, services, strategies, gates, crew, defaultOps, List.of());
    }

    private static void unique(String lab, String what, List<String> ids) {
        Set<String> seen = new HashSet<>();
        for (String id : ids) {
            if (!seen.add(id)) {
                throw new IllegalArgumentException(lab + " declares the " + what + " '" + id + "' twice");
            }
        }
    }

    /** The strategy a run uses when none is named: the first broken one. */
    public Strategy defaultStrategy() {
        for (Strategy s : strategies) {
            if (s.broken()) {
                return s;
            }
        }
        return strategies.get(0);
    }

    public Optional<Strategy> strategy(String id) {
        return strategies.stream().filter(s -> s.id().equals(id)).map(Strategy.class::cast).findFirst();
    }

    public Optional<Gate> gate(String id) {
        return gates.stream().filter(g -> g.id().equals(id)).findFirst();
    }

    public Optional<Switch<?>> switchNamed(String name) {
        return switches.stream().filter(s -> s.name().equals(name)).findFirst();
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
