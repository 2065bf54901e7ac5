package dev.racelab.record;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.Labs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A philosophers' deadlock recorded before version 2, when the table learnt the cycle and the
 * failure from the words of notes: it opens with them as the kinds the table follows now, and the
 * table shows them; the same words in a version 2 file are only notes.
 */
@Tag("engine")
class OldNotesTest {

    @TempDir
    Path dir;

    private static String recording(int version) {
        return String.join("\n",
                "{\"format\":\"racelab-recording\",\"version\":" + version + "}",
                "{\"type\":\"run\",\"run\":1,\"lab\":\"dining-philosophers\",\"strategy\":\"naive\",\"workers\":2,"
                        + "\"ops\":1,\"seed\":1,\"timeoutMs\":10000,\"stepMode\":false,\"observe\":false,"
                        + "\"gates\":\"\",\"switches\":{},\"startedAt\":\"2026-11-23T10:00:00Z\",\"backend\":{}}",
                "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                "[1,0,1,\"ACTOR\",\"WORKER\",\"philosopher-1\"]",
                "[2,0,2,\"ACTOR\",\"WORKER\",\"philosopher-2\"]",
                "[3,10,0,\"RUN_STARTED\",2,\"naive\"]",
                "[4,20,0,\"NOTE\",0,\"hunger measured for the verdict\"]",
                "[5,30,1,\"NOTE\",2,\"deadlock: waits for fork 2, held by philosopher-2\"]",
                "[6,30,2,\"NOTE\",1,\"deadlock: waits for fork 1, held by philosopher-1\"]",
                "[7,40,0,\"NOTE\",2,\"failure: deadlock: philosopher-1 and philosopher-2 wait for each other\"]",
                "[8,50,0,\"RUN_ENDED\",0,\"DEADLOCK\"]",
                "{\"type\":\"outcome\",\"verdict\":\"DEADLOCK\",\"headline\":\"deadlock\",\"explanation\":\"x\","
                        + "\"violations\":{},\"metrics\":{},\"places\":[],\"events\":9,\"droppedEvents\":0}",
                "{\"type\":\"end\",\"runs\":1,\"elapsedMs\":120,\"startupMs\":0}", "");
    }

    private RunRecord read(int version) throws Exception {
        Path file = dir.resolve("v" + version + ".racelab");
        Files.writeString(file, recording(version));
        Labs labs = new Labs(new Backends(BackendSettings.embedded(), dir, StartupListener.SILENT));
        return new RecordingReader(labs).read(file).last();
    }

    private static List<Event> events(RunRecord record) {
        List<Event> events = new ArrayList<>();
        record.events().upToNow().forEach(events::add);
        return events;
    }

    @Test
    void aVersionOneDeadlockOpensWithItsCycleAndFailureAsTheTableFollowsThem() throws Exception {
        RunRecord old = read(1);
        List<Event> events = events(old);
        assertEquals(EventKind.MEASURED, events.get(4).kind());
        assertEquals(EventKind.WAITS_FOR, events.get(5).kind());
        assertEquals("fork 2, held by philosopher-2", events.get(5).subject());
        assertEquals(2, events.get(5).value());
        assertEquals(EventKind.DIAGNOSIS, events.get(7).kind());
        assertEquals("deadlock: philosopher-1 and philosopher-2 wait for each other", events.get(7).subject());

        Labs labs = new Labs(new Backends(BackendSettings.embedded(), dir, StartupListener.SILENT));
        LabView table = labs.find("dining-philosophers").orElseThrow().view(old.header());
        events.forEach(table::accept);
        String shown = table.panels().toString();
        assertTrue(shown.contains("philosopher-1 and philosopher-2 wait for each other"), shown);
    }

    @Test
    void inVersionTwoTheOldWordsAreOnlyNotes() throws Exception {
        List<Event> events = events(read(2));
        for (int seq = 4; seq <= 7; seq++) {
            assertEquals(EventKind.NOTE, events.get(seq).kind(), "event " + seq);
        }
    }
}
