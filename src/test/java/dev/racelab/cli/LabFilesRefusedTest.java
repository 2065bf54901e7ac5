package dev.racelab.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each malformed lab file (one rule of docs/lab-format.md broken, keys outside {@code racelab:}
 * among them) is refused by {@code list} with exit 2 and one line naming its line and column,
 * before any server: the command runs where no server listens, and one that got that far would
 * end with exit 1. Each file's first line says where and what, as RaceLab must say it.
 */
@Tag("engine")
class LabFilesRefusedTest {

    private static final Path MALFORMED = Path.of("src/test/resources/dev/racelab/labfile/malformed");
    private static final String HEADER = "# refused at ";

    @TempDir
    Path home;

    static Stream<Path> malformed() throws IOException {
        try (Stream<Path> files = Files.list(MALFORMED)) {
            List<Path> all = files.filter(f -> f.toString().endsWith(".lab")).sorted().toList();
            assertTrue(all.size() >= 40, "forty malformed lab files or more: " + all.size());
            return all.stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void isRefusedInOneLineNamingTheLineAndColumnBeforeAnyServer(Path file) throws IOException {
        String header = Files.readAllLines(file).get(0);
        assertTrue(header.startsWith(HEADER), file + " says where it is refused on its first line");
        CliRun run = CliRun.of(CliRun.nowhere(home), "list", file.toString());
        assertEquals(2, run.code(), run.err().toString());
        assertEquals(1, run.err().size(), "one line: " + run.err());
        assertEquals("racelab: " + file + ":" + header.substring(HEADER.length()), run.err().get(0));
        assertEquals("", run.out());
    }
}
