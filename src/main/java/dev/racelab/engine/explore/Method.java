package dev.racelab.engine.explore;

import java.util.Locale;

/** How an exploration picks its schedules. */
public enum Method {
    /** Every interleaving of the gates, depth first. */
    ALL,
    /** Every interleaving with at most K preemptions (CHESS's preemption bound), depth first. */
    BOUNDED,
    /** Probabilistic concurrency testing: random priorities, D - 1 random points where they change. */
    PCT,
    /** A uniformly random worker at each gate. */
    RANDOM;

    /** As the command line writes it: {@code bounded}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether it enumerates a space it can finish, counting it exactly. */
    public boolean enumerates() {
        return this == ALL || this == BOUNDED;
    }

    public static Method parse(String text) {
        for (Method method : values()) {
            if (method.id().equals(text)) {
                return method;
            }
        }
        throw new IllegalArgumentException("no method '" + text + "' (methods: all, bounded, pct, random)");
    }
}
