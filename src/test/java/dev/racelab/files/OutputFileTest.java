package dev.racelab.files;

import dev.racelab.support.OddFiles;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule every file RaceLab writes at a user's word goes through, on its own: what is in the way
 * is judged again when the finished file moves into place, a write that fails or is abandoned
 * leaves nothing behind, and a forced replacement is the old file's name with the new content.
 */
@Tag("engine")
class OutputFileTest {

    @TempDir
    Path dir;

    private static OutputFile.Content text(String text) {
        return out -> out.write(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aFileThatAppearsWhileTheOutputIsWrittenIsNotReplacedUnasked() throws Exception {
        Path place = dir.resolve("out.csv");
        OutputFile output = OutputFile.check(place, false);
        try (PartialFile partial = output.start()) {
            partial.stream().write("ours".getBytes(StandardCharsets.UTF_8));
            Files.writeString(place, "someone else's");
            OutputFile.Failed failed = assertThrows(OutputFile.Failed.class, partial::commit);
            assertTrue(failed.getMessage().startsWith("cannot write " + place + ": "), failed.getMessage());
        }
        assertEquals("someone else's", Files.readString(place));
        assertEquals(List.of(), OddFiles.hidden(dir), "no temporary file left");
    }

    @Test
    void aFifoThatAppearsWhileTheOutputIsWrittenIsNotReplacedEvenWhenForced() throws Exception {
        Path place = Files.writeString(dir.resolve("out.csv"), "old");
        OutputFile output = OutputFile.check(place, true);
        try (PartialFile partial = output.start()) {
            Files.delete(place);
            OddFiles.fifo(place);
            String fifo = OddFiles.snapshot(place);
            OutputFile.Failed failed = assertThrows(OutputFile.Failed.class, partial::commit);
            assertTrue(failed.reason().contains("FIFO"), failed.getMessage());
            assertEquals(fifo, OddFiles.snapshot(place));
        }
        assertEquals(List.of(), OddFiles.hidden(dir), "no temporary file left");
    }

    @Test
    void aWriteThatFailsLeavesTheOldFileAndNoTemporaryFile() throws Exception {
        Path place = Files.writeString(dir.resolve("out.csv"), "old");
        OutputFile output = OutputFile.check(place, true);
        OutputFile.Failed failed = assertThrows(OutputFile.Failed.class, () -> output.write(out -> {
            out.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("No space left on device");
        }));
        assertEquals("cannot write " + place + ": No space left on device", failed.getMessage());
        assertEquals("old", Files.readString(place));
        assertEquals(List.of(), OddFiles.hidden(dir), "no temporary file left");
    }

    /** What {@link PartialFile#abandonAll} does to each (here to one: other tests of this JVM may be writing). */
    @Test
    void anAbandonedFileIsRemovedAndNeverCommittedAfter() throws Exception {
        Path place = dir.resolve("out.racelab");
        PartialFile partial = OutputFile.check(place, false).start();
        assertEquals(1, OddFiles.hidden(dir).size(), "the temporary file, beside the place");
        partial.close();
        assertEquals(List.of(), OddFiles.hidden(dir), "removed");
        assertThrows(OutputFile.Failed.class, partial::commit);
        assertTrue(Files.notExists(place), "nothing committed after");
    }

    @Test
    void aForcedWriteReplacesTheFileWhole() throws Exception {
        Path place = Files.writeString(dir.resolve("out.csv"), "old");
        assertEquals(place, OutputFile.check(place, true).write(text("new")));
        assertEquals("new", Files.readString(place));
        assertEquals(List.of(), OddFiles.hidden(dir));
    }

    @Test
    void aNewFileIsWrittenAndAnExistingOneIsNamedAsTheOneInTheWay() throws Exception {
        Path place = dir.resolve("new.csv");
        OutputFile.check(place, false).write(text("first"));
        assertEquals("first", Files.readString(place));
        OutputFile.Failed failed = assertThrows(OutputFile.Failed.class, () -> OutputFile.check(place, false));
        assertEquals(place, failed.existing().orElseThrow());
        assertEquals("it exists already", failed.reason());
    }
}
