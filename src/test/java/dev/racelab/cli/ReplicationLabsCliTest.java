package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication labs on the command line: with the defaults replica-read runs its race on
 * RaceLab's own servers (exit 0, as every run that ran; redis-failover's run is
 * RecordingRoundTripTest's); pointed at single servers someone else runs, each refuses in one line
 * naming what it needs, exit 2, before it touches anything.
 */
@Tag("lab")
class ReplicationLabsCliTest {

    private record Result(int code, String out, String err) {
    }

    private static Result cli(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(Arrays.asList(args));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void onSingleServersSomeoneElseRunsBothLabsRefuseInOneLineAndTouchNothing(@TempDir Path home) {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Result replica = cli(env, "run", "replica-read", "--json", "--pg-url",
                "postgresql://postgres@127.0.0.1:5432/test");
        assertEquals(Cli.USAGE, replica.code(), replica.err());
        assertEquals("", replica.out(), "no summary: nothing ran");
        assertEquals(1, replica.err().strip().lines().count(), replica.err());
        assertTrue(replica.err().contains("replica-read") && replica.err().contains("hot standby"), replica.err());

        Result failover = cli(env, "run", "redis-failover", "--redis-url", "redis://127.0.0.1:6379");
        assertEquals(Cli.USAGE, failover.code(), failover.err());
        assertEquals(1, failover.err().strip().lines().count(), failover.err());
        assertTrue(failover.err().contains("redis-failover") && failover.err().contains("Sentinels"), failover.err());

        Result standbyAlone = cli(env, "run", "replica-read", "--pg-standby-url", "postgresql://postgres@127.0.0.1:5432/test");
        assertEquals(Cli.USAGE, standbyAlone.code(), standbyAlone.err());
        assertTrue(standbyAlone.err().contains("no primary is named"), standbyAlone.err());

        Result explore = cli(env, "explore", "replica-read", "--pg-url", "postgresql://postgres@127.0.0.1:5432/test");
        assertEquals(Cli.USAGE, explore.code(), explore.err());
        assertFalse(Files.exists(home.resolve("postgres")) || Files.exists(home.resolve("redis")),
                "no server of RaceLab's own was even set up");
    }

    @Test
    void withTheDefaultsReplicaReadRunsItsRaceAndExitsZero() {
        Map<String, String> env = Map.of();
        Result replica = cli(env, "run", "replica-read", "--json");
        assertEquals(Cli.OK, replica.code(), replica.err());
        JsonObject summary = JsonParser.parseString(replica.out()).getAsJsonObject();
        assertEquals("RACE", summary.get("verdict").getAsString());
        assertTrue(summary.getAsJsonObject("metrics").get("staleReads").getAsLong() >= 10, replica.out());

        // redis-failover's defaults on the command line: RecordingRoundTripTest runs them, recorded, exit 0.
    }
}
