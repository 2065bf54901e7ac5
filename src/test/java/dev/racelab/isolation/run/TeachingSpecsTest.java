package dev.racelab.isolation.run;

import dev.racelab.isolation.TeachingSpec;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's own teaching specs show on a real PostgreSQL what they say: for each permutation
 * (each isolation level) the anomaly happens, or it does not, or a transaction is refused with
 * the error stated — judged by the spec's check step and the errors the steps got.
 */
@Tag("lab")
// Each spec makes and drops a database: nothing else of the build (SilentServerTest counts on its
// timing beside the others) runs beside these.
@Isolated
class TeachingSpecsTest {

    static Stream<String> specs() {
        return TeachingSpec.all().stream().map(TeachingSpec::id);
    }

    @Test
    void theCatalogueHasTheClassicAnomaliesAtThreeLevelsAndLostUpdateTwoWays() {
        List<String> titles = TeachingSpec.all().stream().map(TeachingSpec::title).toList();
        for (String anomaly : List.of("(G0)", "(G1a)", "(G1b)", "(G1c)", "(OTV)", "(PMP)", "(P4)", "(G-single)",
                "(G2-item)", "(G2)")) {
            TeachingSpec spec = TeachingSpec.all().stream().filter(t -> t.title().endsWith(anomaly)).findFirst()
                    .orElseThrow(() -> new AssertionError("no teaching spec for " + anomaly + " in " + titles));
            assertEquals(List.of("read committed", "repeatable read", "serializable"),
                    spec.expectations().stream().map(TeachingSpec.Expectation::label).toList(), spec.id());
        }
        TeachingSpec twoWays = TeachingSpec.find("lost-update-read-then-write-vs-increment").orElseThrow();
        assertEquals(6, twoWays.expectations().size());
    }

    @ParameterizedTest
    @MethodSource("specs")
    void eachPermutationShowsTheOutcomeItsLevelGives(String id) throws Exception {
        TeachingSpec teaching = TeachingSpec.find(id).orElseThrow();
        PermutationReport report = new PermutationReport();
        Transcript transcript = new Transcript();
        IsolationRun.run(TestServers.postgres(), teaching.spec(), List.of(), IsolationListener.all(report, transcript),
                SpecRunner.Options.DEFAULTS);
        List<PermutationReport.Outcome> outcomes = report.outcomes();
        assertEquals(teaching.expectations().size(), outcomes.size());
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            TeachingSpec.Expectation expected = teaching.expectations().get(i);
            TeachingOutcome observed = TeachingOutcome.of(outcomes.get(i));
            assertNotNull(observed.anomaly(), "the check step ran and answered in " + expected.label());
            if (!observed.matches(expected)) {
                wrong.add(expected.label() + ": states " + expected.outcome() + ", showed " + observed.outcome());
            }
        }
        assertTrue(wrong.isEmpty(), id + ": " + wrong + "\n" + transcript.text());
    }
}
