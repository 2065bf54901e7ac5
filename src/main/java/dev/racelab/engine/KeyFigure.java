package dev.racelab.engine;

/**
 * The one number a lab's outcome turns on, for a batch's histogram: how many increments were lost,
 * stale writes applied, permits lost; how long the hungriest waited. A metric of the outcome,
 * with the words that name it.
 *
 * @param metric the outcome's metric holding it ({@link Outcome#metrics()})
 * @param words  what it is, as an axis says it: "increments lost"
 */
public record KeyFigure(String metric, String words) {

    /** For a lab that names none: its violations, summed. */
    public static final KeyFigure VIOLATIONS = new KeyFigure(null, "violations");

    /** The figure in {@code outcome}: its metric, or for {@link #VIOLATIONS} the violations' sum; 0 where absent. */
    public double of(Outcome outcome) {
        if (metric == null) {
            return outcome.violations().values().stream().mapToLong(Long::longValue).sum();
        }
        Number value = outcome.metrics().get(metric);
        return value == null ? 0 : value.doubleValue();
    }
}
