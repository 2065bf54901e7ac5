package dev.racelab.engine;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the oracle concluded about a run.
 *
 * @param verdict     the verdict
 * @param headline    the violation or result in a few words: "37 increments lost"
 * @param explanation a sentence or two on why, for the banner's second line and the summary
 * @param violations  each kind of violation the oracle counts, and how often it happened
 * @param metrics     numbers worth showing: final values, counts, rates
 * @param places      sequence numbers of the events where violations happened, for the timeline
 */
public record Outcome(Verdict verdict, String headline, String explanation,
                      Map<String, Long> violations, Map<String, Number> metrics, List<Long> places) {

    public Outcome {
        violations = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(violations));
        Map<String, Number> numbers = new LinkedHashMap<>();
        metrics.forEach((name, value) -> numbers.put(name, normal(value)));
        metrics = java.util.Collections.unmodifiableMap(numbers);
        places = List.copyOf(places);
    }

    /**
     * A metric as a {@code Long} when it is a whole number and a {@code Double} otherwise, so an
     * outcome means the same whether its lab wrote an {@code int} or a recording read it back.
     */
    private static Number normal(Number value) {
        if (value instanceof Double || value instanceof Float) {
            return value.doubleValue();
        }
        if (value instanceof java.math.BigDecimal decimal) {
            return decimal.stripTrailingZeros().scale() <= 0 ? (Number) decimal.longValue() : decimal.doubleValue();
        }
        return value.longValue();
    }

    public static Outcome error(String headline, String explanation) {
        return new Outcome(Verdict.ERROR, headline, explanation, Map.of(), Map.of(), List.of());
    }

    /** The banner's text: "RACE — 37 increments lost". */
    public String banner() {
        return verdict + " — " + headline;
    }

    /** A copy with more metrics; existing names keep their values. */
    public Outcome withMetrics(Map<String, ? extends Number> more) {
        Map<String, Number> merged = new LinkedHashMap<>(metrics);
        more.forEach(merged::putIfAbsent);
        return new Outcome(verdict, headline, explanation, violations, merged, places);
    }

    /** A copy whose explanation starts with {@code prefix}. */
    public Outcome prefixed(String prefix) {
        return new Outcome(verdict, headline, prefix + explanation, violations, metrics, places);
    }
}
