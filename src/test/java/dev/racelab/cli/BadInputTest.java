package dev.racelab.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Command lines the parser must refuse, with exit 2 and one line naming what is wrong, before any
 * server is reached. No server is involved: the environment names servers where nobody listens,
 * so a command that got past its checks would end with exit 1 ("cannot be reached"), never start
 * an embedded server and never touch a real one.
 */
@Tag("engine")
class BadInputTest {

    @TempDir
    Path dir;

    private CliRun cli(String... args) {
        return CliRun.of(CliRun.nowhere(dir.resolve("home")), args);
    }

    /** Exit 2, nothing on standard output, one line on standard error that contains {@code named}. */
    private static String refused(CliRun result, String named) {
        assertEquals(2, result.code(), result.out() + result.err());
        assertEquals(1, result.err().size(), "one line: " + result.err());
        String line = result.err().get(0);
        assertTrue(line.startsWith("racelab: "), line);
        assertTrue(line.contains(named), "names " + named + ": " + line);
        assertFalse(line.contains("Exception") || line.contains("WARNING"), line);
        assertEquals("", result.out());
        return line;
    }

    private static String[] args(String line) {
        return line.split(" ");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "run counter --workers 3 --workers 5",
        "run counter --ops 3 --ops=3",
        "run counter --strategy atomic-update --strategy read-modify-write",
        "run counter --runs 2 --runs 3",
        "run counter --expect SAFE --expect RACE",
        "run counter --pg-url postgresql://a@h/db --pg-url postgresql://b@h/db",
        "run counter --json --json",
        "rerun some.racelab --seed 1 --seed 2"
    })
    void anOptionGivenTwiceIsRefusedNamingIt(String line) {
        String[] words = args(line);
        String option = words[words.length - 1].startsWith("--") ? words[words.length - 1] : words[words.length - 2];
        option = option.replaceFirst("=.*", "");
        assertTrue(refused(cli(args(line)), option).contains("more than once"));
    }

    @Test
    void delayAndSetStayRepeatable() {
        CliRun delays = cli("run", "counter", "--delay", "after-read=1", "--delay", "after-read=2-4@client-2");
        assertEquals(1, delays.code(), "past the parser, to the server: " + delays.err());
        assertTrue(delays.err().get(0).contains("127.0.0.1:1"), delays.err().toString());
        CliRun sets = cli("run", "dining-philosophers", "--set", "think-ms=3", "--set", "eat-ms=2");
        assertEquals(1, sets.code(), "past the parser, to the server: " + sets.err());
        assertTrue(sets.err().get(0).contains("127.0.0.1:1"), sets.err().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "--workers ３",
        "--ops １２",
        "--runs ２",
        "--seed ٧",
        "--timeout ５",
        "--workers 3.0",
        "--ops 1e3"
    })
    void digitsOfOtherScriptsAreNotNumbers(String option) {
        String[] parts = option.split(" ");
        String line = refused(cli("run", "counter", parts[0], parts[1]), parts[0]);
        assertTrue(line.endsWith("must be a whole number, not '" + parts[1] + "'"), line);
    }

    @Test
    void jsonFalseMeansNoJsonAndOnlyTrueOrFalseMayFollowTheSwitch() {
        CliRun text = cli("list", "--json=false");
        assertEquals(0, text.code(), text.err().toString());
        assertTrue(text.out().startsWith("counter — "), "the labs as text, not JSON: " + text.out());
        CliRun json = cli("list", "--json=true");
        assertEquals(0, json.code(), json.err().toString());
        assertTrue(json.out().startsWith("{"), "JSON: " + json.out());
        for (String line : List.of("list --json=no", "run counter --json=1", "replay some.racelab --json=yes")) {
            String refused = refused(cli(args(line)), "--json");
            assertTrue(refused.contains("is true or false, not '"), refused);
        }
    }

    @Test
    void anEmptyServerAddressIsRefusedNotReplacedByAnother() {
        assertTrue(refused(cli("run", "counter", "--pg-url", ""), "--pg-url").contains("is empty"));
        assertTrue(refused(cli("run", "counter", "--pg-url=  "), "--pg-url").contains("is empty"));
        assertTrue(refused(cli("run", "dining-philosophers", "--redis-url", ""), "--redis-url").contains("is empty"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "--pg-url postgresql://alice:hunter2@127.0.0.1:0/db|port must be from 1 to 65535, not 0",
        "--pg-url postgresql://alice:hunter2@127.0.0.1:99999/db|port must be from 1 to 65535, not 99999",
        "--pg-url postgresql://alice:hunter2@127.0.0.1:5432/db?sslmode=bogus|sslmode must be one of",
        "--pg-url jdbc:postgresql://127.0.0.1/db?user=alice&password=hunter2&sslmode=on|not 'on'",
        "--redis-url redis://:hunter2@127.0.0.1:0|port must be from 1 to 65535, not 0",
        "--redis-url redis://:hunter2@127.0.0.1:99999|port must be from 1 to 65535, not 99999",
        "--redis-url redis://127.0.0.1:6379/３|database must be a number"
    })
    void aServerAddressThatCannotWorkIsBadUsageFoundBeforeAnyServer(String caseAndReason) {
        String[] parts = caseAndReason.split("\\|");
        String[] option = parts[0].split(" ");
        String line = refused(cli("run", "dining-philosophers", option[0], option[1]), option[0]);
        assertTrue(line.contains(parts[1]), line);
        assertFalse(line.contains("hunter2"), "never the password: " + line);
    }

    @Test
    void aRecordingThatCannotBeWrittenIsFoundBeforeAnyServerAndNamedAsGiven() throws Exception {
        Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
        List<String> places = new ArrayList<>(List.of("/proc/run.racelab", file.resolve("run.racelab").toString(),
                dir.resolve("missing").resolve("run.racelab").toString()));
        if (Files.isDirectory(Path.of("/sys"))) {
            places.add("/sys/run.racelab");
        }
        for (String place : places) {
            String line = refused(cli("run", "counter", "--record", place), place);
            assertTrue(line.startsWith("racelab: cannot record to " + place + ": "), line);
            assertFalse(line.contains(".part"), "not the temporary file: " + line);
        }
        assertArrayEquals("mine".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(file), "left as it was");
        try (var listing = Files.list(dir)) {
            assertEquals(List.of(file), listing.filter(p -> !p.getFileName().toString().equals("home")).toList(),
                    "nothing left behind");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "run counter --bogus|unknown option --bogus",
        "run counter -x|unknown option -x",
        "run counter extra|unexpected argument 'extra'",
        "bogus|unknown command 'bogus'",
        "--bogus|unknown option --bogus",
        "run counter --workers|--workers needs a value",
        "run counter --workers --json|--workers needs a value",
        "run|run needs a lab",
        "replay|replay needs a recording",
        "rerun|rerun needs a recording",
        "run counter --expect maybe|--expect maybe: a verdict is one of SAFE, RACE, DEADLOCK, STUCK, ERROR",
        "replay @args.txt|@args.txt does not exist",
        "run counter --sweep after-read|--sweep after-read: write GATE=LO-HI/STEP",
        "run counter --sweep nowhere=0-20/5|lab counter has no gate 'nowhere'",
        "run counter --sweep after-read=20-0/5|from a delay up to a larger one",
        "run counter --sweep after-read=0-20/0|in steps of at least 1 ms",
        "run counter --sweep after-read=0-20|write the delays as LO-HI/STEP",
        "run counter --sweep after-read=0-1000/1|at most 200 delays, not 1001",
        "run counter --sweep after-read=0-20/5@client-9|there is no worker 'client-9'",
        "run counter --sweep after-read=0-100/1 --runs 200|makes 20200 runs; at most 10000"
    })
    void otherBadCommandLinesNameWhatIsWrong(String caseAndMessage) {
        String[] parts = caseAndMessage.split("\\|");
        refused(cli(args(parts[0])), parts[1]);
    }

    @Test
    void theHelpIsGeneratedAndNamesEveryCommandAndRunOption() {
        for (String[] asked : List.of(new String[] {}, new String[] {"--help"}, new String[] {"-h"},
                new String[] {"help"})) {
            CliRun help = cli(asked);
            assertEquals(0, help.code(), String.join(" ", asked) + ": " + help.err());
            assertTrue(help.err().isEmpty(), help.err().toString());
            for (String command : List.of("list", "run", "replay", "rerun")) {
                assertTrue(help.out().contains("\n    " + command + " "), command + " in " + help.out());
            }
            for (String option : List.of("--strategy NAME", "--workers N", "--ops N", "--delay GATE=MS", "--set NAME=VALUE",
                    "--runs N", "--seed N", "--timeout SECONDS", "--record FILE", "--pg-url URL", "--redis-url URL",
                    "--expect VERDICT", "--json")) {
                assertTrue(help.out().contains(option), option + " in " + help.out());
            }
            assertTrue(help.out().contains("exit codes:"), help.out());
            assertTrue(help.out().contains("bad usage"), help.out());
        }
        for (String[] asked : List.of(new String[] {"run", "--help"}, new String[] {"help", "run"},
                new String[] {"run", "counter", "-h"})) {
            CliRun help = cli(asked);
            assertEquals(0, help.code(), String.join(" ", asked) + ": " + help.err());
            assertTrue(help.out().contains("LAB") && help.out().contains("--delay GATE=MS")
                    && help.out().contains("repeatable"), help.out());
        }
        CliRun version = cli("--version");
        assertEquals(0, version.code());
        assertTrue(version.out().startsWith("racelab "), version.out());
    }
}
