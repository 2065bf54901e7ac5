package dev.racelab.labfile;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lab files RaceLab ships read, are at most 60 lines, and every choice of every switch
 * changes what runs: a choice no step, setup or teardown depends on would be a variant that is
 * not one. (Their verdicts on real servers are the runner's tests.)
 */
@Tag("engine")
class ExampleLabFilesTest {

    private static final Path FOLDER = Path.of("src/main/resources/dev/racelab/labfiles");

    @ParameterizedTest
    @ValueSource(strings = {"counter", "fencing", "lease-lock", "unique-signup", "redis-counter"})
    void readsIsShortAndEveryChoiceChangesWhatRuns(String name) throws Exception {
        Path file = FOLDER.resolve(name + ".lab");
        assertTrue(Files.readAllLines(file).size() <= 60, file + " is at most 60 lines");
        LabFile lab = LabReader.read(file);
        assertNull(lab.spec(), "a lab file, not a spec");
        assertFalse(lab.invariants().isEmpty());
        assertFalse(lab.story().isBlank(), "it tells its story");
        for (LabFile.Choice choice : lab.switches()) {
            Set<String> used = new HashSet<>();
            for (LabFile.LabSession session : lab.sessions()) {
                for (LabFile.LabStep step : session.steps()) {
                    if (step.when() != null && step.when().switchName().equals(choice.name())) {
                        choice.choices().stream().filter(step.when()::runsWith).forEach(used::add);
                    }
                }
            }
            lab.setup().stream().filter(b -> b.when() != null && b.when().switchName().equals(choice.name()))
                    .forEach(b -> choice.choices().stream().filter(b.when()::runsWith).forEach(used::add));
            assertEquals(new HashSet<>(choice.choices()), used, "every choice of switch " + choice.name()
                    + " has a step of its own in " + name);
        }
    }
}
