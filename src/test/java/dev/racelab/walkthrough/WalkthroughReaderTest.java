package dev.racelab.walkthrough;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Walkthroughs as files: every lab brings one that reads against the labs as they are (a lesson
 * never breaks half-way in front of a class), and a broken file is refused in one message that
 * names its line.
 */
@Tag("engine")
class WalkthroughReaderTest {

    private static Backends unstarted;
    private static Labs labs;
    private static WalkthroughReader reader;

    @BeforeAll
    static void labs() {
        unstarted = new Backends(BackendSettings.embedded(), Path.of("target/unused-home"), StartupListener.SILENT);
        labs = new Labs(unstarted);
        reader = new WalkthroughReader(labs::find);
    }

    @AfterAll
    static void close() {
        unstarted.close();
    }

    private static Walkthrough read(String text) throws WalkthroughReader.Problem {
        return reader.parse("lesson.walkthrough", text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everyLabBringsAWalkthroughThatReadsAgainstTheLabsAsTheyAre() throws Exception {
        for (Lab lab : labs.all()) {
            try (InputStream in = WalkthroughReaderTest.class.getResourceAsStream(
                    "/dev/racelab/walkthroughs/" + lab.id() + ".walkthrough")) {
                assertNotNull(in, lab.id() + " has a walkthrough");
                Walkthrough walkthrough = reader.read(lab.id(), in);
                assertTrue(walkthrough.steps().size() >= 4, lab.id() + ": provoke, see, fix, verify");
                assertTrue(walkthrough.steps().stream().anyMatch(step -> step.run()), lab.id() + " runs the lab");
                assertTrue(walkthrough.steps().stream().anyMatch(step -> step.batch() != null),
                        lab.id() + " checks the fix over many runs");
                assertTrue(walkthrough.steps().stream().allMatch(step -> lab.id().equals(step.lab())),
                        lab.id() + "'s steps each set its lab");
            }
        }
    }

    /**
     * A step that explains the run just made (it points at its marks, a lane, a panel, and sets
     * nothing up) keeps that run on screen; one that runs or sets something up asks for a fresh
     * one. Every lab's own lesson has such a step right after the run it explains.
     */
    @Test
    void aStepThatOnlyPointsKeepsTheRunOnScreenAndOneThatSetsUpAsksForAFreshOne() throws Exception {
        Walkthrough w = read("""
                walkthrough: L
                lab: counter
                step: Set up
                  say: x
                  workers: 2
                step: Run
                  say: x
                  run
                step: Look
                  say: x
                  point: marks
                  point: panel Counter row
                step: Switch
                  say: x
                  strategy: atomic-update
                """);
        assertEquals(List.of(true, true, false, true), w.steps().stream().map(Walkthrough.Step::freshRun).toList());
        for (Lab lab : labs.all()) {
            try (InputStream in = WalkthroughReaderTest.class.getResourceAsStream(
                    "/dev/racelab/walkthroughs/" + lab.id() + ".walkthrough")) {
                List<Walkthrough.Step> steps = reader.read(lab.id(), in).steps();
                for (int i = 1; i < steps.size(); i++) {
                    Walkthrough.Step step = steps.get(i);
                    boolean explains = step.batch() == null && !step.pointers().isEmpty() && step.pointers().stream()
                            .allMatch(p -> p.target() != Walkthrough.Target.GATES && p.target() != Walkthrough.Target.LAST_RUNS);
                    if (explains && !step.freshRun()) {
                        assertTrue(steps.get(i - 1).run() || !steps.get(i - 1).freshRun(),
                                lab.id() + " step " + (i + 1) + " explains a run its step before made");
                    }
                }
            }
        }
    }

    @Test
    void aStepSaysWhatItSetsUpAndWhereToLook() throws Exception {
        Walkthrough w = read("""
                # a comment
                walkthrough: Lost increments
                lab: counter

                step: Provoke it
                  say: Two clients read the same value.
                  say: The later write wins.
                  strategy: read-modify-write
                  workers: 2
                  ops: 3
                  gates: after-read=10-30 before-read=0
                  run
                  point: lane client-2
                  point: panel Counter row
                step: Verify
                  say: A hundred runs.
                  batch: 100 read-modify-write atomic-update sweep after-read=0-20/5
                """);
        assertEquals("Lost increments", w.title());
        Walkthrough.Step first = w.steps().get(0);
        assertEquals(5, first.line());
        assertEquals("Two clients read the same value. The later write wins.", first.text());
        assertEquals("counter", first.lab());
        assertEquals(2, first.workers());
        assertTrue(first.run());
        assertEquals(new Walkthrough.Pointer(Walkthrough.Target.LANE, "client-2"), first.pointers().get(0));
        Walkthrough.BatchOrder batch = w.steps().get(1).batch();
        assertEquals(100, batch.runs());
        assertEquals(java.util.List.of("read-modify-write", "atomic-update"), batch.strategies());
        assertEquals("after-read=0-20/5", batch.sweep());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "starts badly|lab: counter|line 1: a walkthrough starts with 'walkthrough: TITLE'",
        "unknown lab|walkthrough: W\\nlab: nowhere|line 2: there is no lab 'nowhere'",
        "unknown key|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  shout: y|line 5: unknown 'shout'",
        "no words|walkthrough: W\\nlab: counter\\nstep: S\\n  run\\nstep: T\\n  say: x|line 3: step 'S' says nothing",
        "bad strategy|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  strategy: fast|line 5: lab counter has no strategy 'fast'",
        "bad gate|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  gates: after-lunch=5|line 5: lab counter has no gate 'after-lunch'",
        "bad delay|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  gates: after-read=soon|line 5: gates:",
        "bad workers|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  workers: many|line 5: 'workers' takes a whole number",
        "no lab|walkthrough: W\\nstep: S\\n  say: x\\n  strategy: atomic-update|line 4: 'strategy' needs a lab",
        "bad switch|walkthrough: W\\nlab: redis-primitives\\nstep: S\\n  say: x\\n  set: lease-ms=often|line 5: set lease-ms=often",
        "bad batch|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  batch: 10 quick|line 5: batch: lab counter has no strategy 'quick'",
        "bad sweep|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  batch: 10 sweep after-read=20-0/5|line 5: batch: sweep",
        "lane without name|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  point: lane|line 5: 'point: lane' needs the lane's name",
        "point at nothing|walkthrough: W\\nlab: counter\\nstep: S\\n  say: x\\n  point: the ceiling|line 5: 'point: the ceiling'",
        "say before step|walkthrough: W\\nsay: hello|line 2: 'say' belongs in a step",
        "no step|walkthrough: W\\nlab: counter|has no step"
    })
    void aBrokenFileIsRefusedNamingItsLine(String what, String text, String named) {
        WalkthroughReader.Problem problem = assertThrows(WalkthroughReader.Problem.class,
                () -> read(text.replace("\\n", "\n")), what);
        assertTrue(problem.getMessage().startsWith("lesson.walkthrough"), problem.getMessage());
        assertTrue(problem.getMessage().contains(named), what + ": " + problem.getMessage());
    }

    @Test
    void anEmptyFileOrOneThatIsNotTextIsRefused() {
        assertTrue(assertThrows(WalkthroughReader.Problem.class, () -> read("")).getMessage().contains("is empty"));
        assertTrue(assertThrows(WalkthroughReader.Problem.class, () -> reader.parse("x", new byte[] {(byte) 0xff, 0x00}))
                .getMessage().contains("not UTF-8 text"));
    }
}
