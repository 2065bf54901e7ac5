package dev.racelab.walkthrough;

import java.util.List;

/**
 * A guided lesson: steps in plain words that set up a lab, run it, point at what to look at on the
 * screen, switch on the fix and check it over many runs. Written as text
 * ({@code docs/walkthrough-format.md}), read by {@link WalkthroughReader}, shown by the window.
 *
 * @param title  what the lesson is called
 * @param source where it was read from (a resource, a file), for messages
 * @param steps  in order; never empty
 */
public record Walkthrough(String title, String source, List<Step> steps) {

    public Walkthrough {
        steps = List.copyOf(steps);
    }

    /** Where a step points the class's eyes. */
    public enum Target {
        /** The verdict banner. */
        BANNER,
        /** The violation marks, walked with the banner's ◀ ▶ (the first is shown). */
        MARKS,
        /** One lane of the timeline, by its name ({@code client-2}, {@code counter row}). */
        LANE,
        /** One of the lab's panels, by its title. */
        PANEL,
        /** The lab's picture. */
        PICTURE,
        /** The gates, where the delays are. */
        GATES,
        /** The last run of each strategy, for before and after. */
        LAST_RUNS
    }

    /** Where a step points: a part of the window, and for a lane or a panel which one. */
    public record Pointer(Target target, String name) {
    }

    /** A batch a step runs: {@code runs} of each strategy, sweeping a gate's delay if {@code sweep} is set. */
    public record BatchOrder(int runs, List<String> strategies, String sweep) {
    }

    /**
     * One step.
     *
     * @param line       where it starts in the file, for messages
     * @param title      a heading
     * @param text       what to say, paragraphs
     * @param lab        the lab to choose, or null to keep the one shown
     * @param strategy   the strategy to choose, or null
     * @param workers    how many workers, or null
     * @param ops        operations per worker, or null
     * @param gates      the gate plan as {@code racelab list} and the recordings write it ({@code
     *                   after-read=10-30 before-read=0-100}), "" to clear every delay, or null to keep them
     * @param switches   a lab's switches, {@code NAME=VALUE} each
     * @param run        whether to start a run when the step is shown
     * @param batch      a batch to run when the step is shown, or null
     * @param pointers   what to point at
     */
    public record Step(int line, String title, String text, String lab, String strategy, Integer workers, Integer ops,
                       String gates, List<String> switches, boolean run, BatchOrder batch, List<Pointer> pointers) {

        public Step {
            switches = List.copyOf(switches);
            pointers = List.copyOf(pointers);
        }

        /**
         * Whether this step asks for a fresh run: it runs one, or sets something up (a strategy,
         * workers, operations, gates or a switch; a lab other than the one shown brings its own).
         * A step that only says and points explains the run on screen, which stays as it ended.
         */
        public boolean freshRun() {
            return run || strategy != null || workers != null || ops != null || gates != null || !switches.isEmpty();
        }
    }
}
