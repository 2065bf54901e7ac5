package dev.racelab.isolation.run;

import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.TeachingSpec;

/**
 * What a permutation of a teaching spec showed, judged as its {@code #:} line states outcomes:
 * the anomaly happened if its {@code check} step says {@code anomaly = t}; else a transaction was
 * refused if a step failed (the first failure's SQLSTATE); else it was safe.
 *
 * @param anomaly  the check step's verdict, or null if the permutation ran no check (or it failed)
 * @param sqlState the first error's SQLSTATE, or null
 */
public record TeachingOutcome(TeachingSpec.Kind kind, Boolean anomaly, String sqlState) {

    /** Judges one permutation's report. */
    public static TeachingOutcome of(PermutationReport.Outcome permutation) {
        Boolean anomaly = null;
        String sqlState = null;
        for (PermutationReport.StepOutcome step : permutation.steps()) {
            if (step.step().equals("check")) {
                anomaly = anomaly(step);
            } else if (sqlState == null && step.failed()) {
                sqlState = step.error() == null ? "lost" : step.error().sqlState();
            }
        }
        TeachingSpec.Kind kind = Boolean.TRUE.equals(anomaly) ? TeachingSpec.Kind.ANOMALY
                : sqlState != null ? TeachingSpec.Kind.REJECTED : TeachingSpec.Kind.SAFE;
        return new TeachingOutcome(kind, anomaly, kind == TeachingSpec.Kind.REJECTED ? sqlState : null);
    }

    private static Boolean anomaly(PermutationReport.StepOutcome check) {
        for (WireResult r : check.results()) {
            int column = r.columns().indexOf("anomaly");
            if (column >= 0 && r.rows().size() == 1) {
                return "t".equals(r.rows().get(0).get(column));
            }
        }
        return null;
    }

    /** Whether this is what {@code expected} states. */
    public boolean matches(TeachingSpec.Expectation expected) {
        return kind == expected.kind() && (kind != TeachingSpec.Kind.REJECTED || expected.sqlState().equals(sqlState));
    }

    /** As a {@code #:} line writes an outcome: {@code anomaly}, {@code safe}, {@code rejected 40001}. */
    public String outcome() {
        return kind == TeachingSpec.Kind.REJECTED ? "rejected " + sqlState : kind.name().toLowerCase();
    }
}
