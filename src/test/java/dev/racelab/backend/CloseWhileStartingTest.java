package dev.racelab.backend;

import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window starts its servers on threads of their own and, told to end (SIGTERM), closes its
 * {@link Backends} from a shutdown hook; the JVM exits as soon as the hook returns. So closing
 * while the embedded PostgreSQL is being set up must stop that start there and then: when {@code
 * close} returns, nothing of it runs (not initdb, not a postmaster), and the starting thread has
 * ended with a sentence, not a server.
 */
@Tag("lab")
class CloseWhileStartingTest {

    /** A stopped start takes a second or two; this is room for a busy machine. */
    private static final long CLOSES_WITHIN_MILLIS = 8_000;

    @TempDir
    Path home;

    @AfterEach
    void killWhatIsLeft() {
        ProcFs.killAllIn(home);
    }

    @Test
    void closingWhileInitdbSetsUpTheFirstClusterStopsItAndLeavesNothingRunning() throws Exception {
        Backends backends = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT);
        AtomicReference<Object> ended = new AtomicReference<>();
        Thread starter = new Thread(() -> {
            try {
                ended.set(backends.postgres());
            } catch (BackendException e) {
                ended.set(e);
            }
        }, "start-postgres");
        starter.setDaemon(true);
        starter.start();
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> ProcFs.workingOn(home).stream()
                .anyMatch(line -> line.contains("initdb"))), "initdb was never seen at work");

        long began = System.nanoTime();
        backends.close();
        long ms = (System.nanoTime() - began) / 1_000_000;
        List<String> left = ProcFs.workingOn(home);
        starter.join(10_000);

        assertEquals(List.of(), left, "still running when close returned, as the JVM would exit");
        assertFalse(starter.isAlive(), "the start ended");
        assertInstanceOf(BackendException.class, ended.get(), String.valueOf(ended.get()));
        assertTrue(ms < CLOSES_WITHIN_MILLIS, "close took " + ms + " ms");
    }
}
