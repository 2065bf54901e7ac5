package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.RunRecord;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Invariants lane reads a lab file's invariants while the run goes, and must not change the
 * race it shows: an invariant that writes is judged once, at the end, whether it says so plainly
 * or hides its write in a query; and a worker holding a table's lock does not stall the lane.
 */
@Tag("lab")
class InvariantLaneTest {

    private static CliRun run(String... args) {
        return CliRun.onTestServers(args);
    }

    @Test
    void anInvariantThatWritesIsJudgedOnceAtTheEnd(@TempDir Path dir) throws Exception {
        Path lab = Files.writeString(dir.resolve("writes.lab"), """
                setup { CREATE TABLE t (n int NOT NULL); INSERT INTO t VALUES (0);
                        CREATE TABLE u (n int NOT NULL); INSERT INTO u VALUES (0); }
                session s workers 2 ops 3
                step look pg { SELECT n FROM t }
                gate between delay 20
                invariant "plainly" pg { UPDATE t SET n = n + 1 RETURNING n } = 1
                invariant "in a query" pg { WITH w AS (UPDATE u SET n = n + 1 RETURNING n) SELECT n FROM w } = 1
                """);
        // --record observes, as the window does: the lane reads while the run goes.
        CliRun ran = run("run", lab.toString(), "--record", dir.resolve("w.racelab").toString(), "--json");
        assertEquals(0, ran.code(), ran.err().toString());
        JsonObject summary = JsonParser.parseString(ran.out()).getAsJsonObject();
        assertEquals("SAFE", summary.get("verdict").getAsString(), "each write ran once: " + ran.out());
    }

    @Test
    void aWorkerHoldingATableLockStallsNoRead(@TempDir Path dir) throws Exception {
        // Long enough that a read waiting for the lock would leave a gap wider than the widest allowed.
        long holdMs = 3_000;
        Path lab = Files.writeString(dir.resolve("locks.lab"), """
                setup { CREATE TABLE t (n int NOT NULL); INSERT INTO t VALUES (0); }
                session s workers 1 ops 1
                step lock pg { BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE }
                gate hold delay %d
                step add pg { UPDATE t SET n = n + 1 }
                step commit pg { COMMIT }
                invariant "added" pg { SELECT n FROM t } = 1
                """.formatted(holdMs));
        Path file = dir.resolve("l.racelab");
        CliRun ran = run("run", lab.toString(), "--record", file.toString(), "--json");
        assertEquals(0, ran.code(), ran.err().toString());
        JsonObject summary = JsonParser.parseString(ran.out()).getAsJsonObject();
        assertEquals("SAFE", summary.get("verdict").getAsString(), ran.out());
        // The lanes were read all along: no read waited for the worker's lock.
        RunRecord record = new RecordingReader(new Labs(TestServers.backends())).read(file).last();
        int lane = -1;
        long last = -1;
        long widest = 0;
        for (Event e : record.events().upToNow()) {
            if (e.kind() == EventKind.ACTOR && "Invariants".equals(e.subject())) {
                lane = e.actor();
            } else if (e.actor() == lane && e.kind() == EventKind.SERVER_SAMPLE) {
                widest = last < 0 ? 0 : Math.max(widest, e.nanos() - last);
                last = e.nanos();
            }
        }
        assertTrue(last > 0, "the Invariants lane was read");
        assertTrue(widest < 1_500_000_000L, "the widest gap between two reads: " + widest / 1_000_000 + " ms");
    }
}
