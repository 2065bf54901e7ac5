package dev.racelab.labs.support;

import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunThreads;
import dev.racelab.engine.ServerWatch;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.SwitchValues;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A lab whose set-up fails in its scenario's constructor never gets a scenario the run could
 * close: the fixture must clean up after itself, leaving no connection, thread or key of the run.
 */
@Tag("lab")
class RedisFixtureTest {

    private static final Strategy STRATEGY = () -> Strategy.About.fix("test", "test", "whatever the lab does");

    @Test
    void aSetUpThatFailsLeavesNoConnectionThreadOrKeyBehind() throws Exception {
        String runId = "test-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        RunSetup setup = new RunSetup(runId, STRATEGY, 2, 1, 1, SwitchValues.DEFAULTS,
                RunThreads.unsupervised((thread, failure) -> { }), new ServerWatch());
        RedisFixture fixture = RedisFixture.hardened(TestServers.redis(), setup, Duration.ofMillis(300));
        IllegalStateException defect = new IllegalStateException("the lab's set-up failed");

        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> fixture.setUp(admin -> {
            fixture.constructs().createSemaphore(admin, "mutex", 1);
            throw defect;
        }));

        assertSame(defect, thrown);
        List<String> threads = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(name -> name.contains(runId)).toList();
        assertEquals(List.of(), threads, "threads left behind");
        try (Jedis redis = TestServers.redis().open("test:leftovers", 5_000)) {
            Poll.until("the run's connections are gone", () -> redis.clientList().lines()
                    .noneMatch(line -> line.contains("name=racelab:" + runId)));
            assertEquals(List.of(), redis.scan(ScanParams.SCAN_POINTER_START,
                    new ScanParams().match("racelab:" + runId + ":*").count(10_000)).getResult(), "keys left behind");
        }
    }
}
