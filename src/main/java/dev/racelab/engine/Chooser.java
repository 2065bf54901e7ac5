package dev.racelab.engine;

/**
 * Picks which worker passes its gate next in a scheduled run ({@link Steering}). Called on the
 * run's schedule thread only, once every worker is halted at a gate, finished, or waiting on a
 * server.
 */
@FunctionalInterface
public interface Chooser {

    /**
     * The worker to release at {@code point}: one of {@link Point#enabled()}.
     *
     * @throws IllegalStateException if the run cannot go on as this chooser must have it (a
     *                               schedule that names a worker not at a gate); the run ends ERROR
     */
    int choose(Point point);

    /**
     * One scheduling point.
     *
     * @param step     how many passages came before (0 for the first)
     * @param enabled  the workers halted at a gate, as bits (worker {@code i} is bit {@code i})
     * @param previous the worker released last, or -1
     */
    record Point(int step, long enabled, int previous) {

        /** Whether {@code worker} may pass now. */
        public boolean enabled(int worker) {
            return (enabled & (1L << worker)) != 0;
        }

        /** The workers that may pass now, without time. */
        public long workers() {
            return enabled & ~(1L << Schedule.TIME);
        }

        /**
         * The previous worker if it may go on, else the lowest that may, else time: a choice that
         * preempts nobody.
         */
        public int carryOn() {
            if (previous >= 0 && previous != Schedule.TIME && enabled(previous)) {
                return previous;
            }
            return workers() != 0 ? Long.numberOfTrailingZeros(workers()) : Schedule.TIME;
        }

        /**
         * Whether choosing {@code worker} here makes a worker wait that could have gone on: one
         * released while the one before could have gone on, or time let pass while some worker is
         * at a gate.
         */
        public boolean preempts(int worker) {
            if (worker == Schedule.TIME) {
                return workers() != 0;
            }
            return previous >= 0 && previous != Schedule.TIME && worker != previous && enabled(previous);
        }
    }

    /**
     * Follows {@code schedule} passage by passage; past its end, lets the last worker carry on
     * (no preemption) when {@code strict} is false, or ends the run when it is true.
     */
    static Chooser following(Schedule schedule, boolean strict, java.util.function.IntFunction<String> name) {
        return point -> {
            if (point.step() >= schedule.size()) {
                if (strict) {
                    throw new IllegalStateException("the schedule ends after " + schedule.size()
                            + " passages, but the run goes on there");
                }
                return point.carryOn();
            }
            int worker = schedule.at(point.step());
            if (!point.enabled(worker)) {
                throw new IllegalStateException("passage " + (point.step() + 1) + " of the schedule is "
                        + (worker == Schedule.TIME ? "time passing, but nobody is backing off there"
                        : name.apply(worker) + "'s, but " + name.apply(worker) + " is not at a gate there"));
            }
            return worker;
        };
    }
}
