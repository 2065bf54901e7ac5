package dev.racelab.isolation;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every one of PostgreSQL's own specs reads, and RaceLab would run the permutations its expected
 * output starts, in the same order, after the same warnings about unused steps.
 */
@Tag("engine")
class PostgresSpecsReadTest {

    @ParameterizedTest
    @ValueSource(ints = {17, 15})
    void everySpecReadsAndRunsThePermutationsItsExpectedOutputStarts(int major) throws Exception {
        PostgresSpecs specs = PostgresSpecs.forMajor(major);
        int compared = 0;
        for (Path file : specs.allSpecs()) {
            Spec spec = SpecReader.read(file);
            List<String> expected = specs.expected(spec.name());
            if (expected.isEmpty()) {
                continue;
            }
            List<String> header = new ArrayList<>();
            spec.unusedSteps().forEach(step -> header.add("unused step name: " + step));
            header.add("Parsed test spec with " + spec.sessions().size() + " sessions");
            List<String> permutations = new ArrayList<>();
            spec.permutations().forEach(p -> permutations.add("starting permutation: " + p.names()));

            String output = expected.get(0);
            List<String> lines = List.of(output.split("\n"));
            assertEquals(header, lines.subList(0, header.size()), spec.name());
            assertEquals(permutations, lines.stream().filter(l -> l.startsWith("starting permutation:")).toList(),
                    spec.name());
            compared++;
        }
        assertEquals(specs.allSpecs().size(), compared, "every spec has an expected output");
    }
}
