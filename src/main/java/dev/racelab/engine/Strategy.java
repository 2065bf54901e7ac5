package dev.racelab.engine;

/**
 * One way a lab's workers can do their job.
 *
 * <p>Each lab declares its strategies as an enum implementing this, and its scenario chooses
 * behaviour by switching over its own enum, which the compiler checks; the id is only for the
 * command line, the window's switch and recordings.
 */
public interface Strategy {

    /** What the strategy says of itself. */
    About about();

    /** What the command line calls it: {@code read-modify-write}. */
    default String id() {
        return about().id();
    }

    /** A short name for the strategy switch. */
    default String title() {
        return about().title();
    }

    /** One line on what it does and why it is or is not safe. */
    default String summary() {
        return about().summary();
    }

    /** Whether this strategy races (the lab's default is its first broken one). */
    default boolean broken() {
        return about().broken();
    }

    /**
     * A strategy's words.
     *
     * @param id      what the command line calls it: {@code read-modify-write}
     * @param title   a short name for the strategy switch
     * @param summary one line on what it does and why it is or is not safe
     * @param broken  whether it races
     */
    record About(String id, String title, String summary, boolean broken) {
        public About {
            if (!id.matches("[a-z][a-z0-9_-]*")) {
                throw new IllegalArgumentException("strategy ids are lower-case words joined by '-' (or '_', as a lab file writes them): " + id);
            }
        }

        /** A strategy that races. */
        public static About broken(String id, String title, String summary) {
            return new About(id, title, summary, true);
        }

        /** A strategy that fixes the race. */
        public static About fix(String id, String title, String summary) {
            return new About(id, title, summary, false);
        }
    }
}
