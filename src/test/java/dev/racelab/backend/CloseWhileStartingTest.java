package dev.racelab.backend;

import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window starts its servers on threads of their own and, told to end (SIGTERM), closes its
 * {@link Backends} from a shutdown hook; the JVM exits as soon as the hook returns. So closing
 * while the embedded PostgreSQL is being set up must stop that start there and then: when {@code
 * close} returns, nothing of it runs (not initdb, not the servers it runs, not a postmaster), and
 * the starting thread has ended with a sentence, not a server.
 */
@Tag("lab")
class CloseWhileStartingTest {

    /** A stopped start takes a second or two; this is room for a busy machine. */
    private static final long CLOSES_WITHIN_MILLIS = 8_000;

    @TempDir
    Path home;

    /** A build without a prepared cluster sets one up with initdb (PreparedPostgres); these starts are told to. */
    @BeforeAll
    static void setUpWithInitdb() {
        System.setProperty("racelab.postgres.initdb", "yes");
    }

    @AfterAll
    static void copyThePreparedClusterAgain() {
        System.clearProperty("racelab.postgres.initdb");
    }

    @AfterEach
    void killWhatIsLeft() {
        ProcFs.killAllIn(home);
    }

    @Test
    void closingWhileInitdbSetsUpTheFirstClusterStopsItAndLeavesNothingRunning() throws Exception {
        closeDuringInitdb(line -> false);
    }

    /**
     * On a busy machine a server initdb runs may not have ended when initdb is killed: here one is
     * held stopped (SIGSTOP) as initdb's servers are seen, so that it is still there whatever the
     * order of the kills. Orphaned, it names neither the data directory nor this process.
     */
    @Test
    void aServerInitdbRunsThatHasNotEndedIsStoppedWithIt() throws Exception {
        closeDuringInitdb(line -> {
            long pid = Long.parseLong(line.substring(0, line.indexOf(' ')));
            try {
                return new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor() == 0;
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Starts the embedded PostgreSQL in a new home, closes it as initdb's servers run (after {@code
     * atTheClose} on the first seen), and checks what is left. */
    private void closeDuringInitdb(Predicate<String> atTheClose) throws Exception {
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
        // initdb's own servers (postgres --check, --boot, --single) name no data directory and
        // outlive an initdb killed first; the close must stop them too.
        AtomicReference<String> seen = new AtomicReference<>();
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> ProcFs.workingOn(home).stream()
                .filter(line -> line.matches("\\d+ .*/postgres --(check|boot|single).*"))
                .anyMatch(line -> seen.compareAndSet(null, line) && atTheClose.test(line) || seen.get() != null)),
                "initdb was never seen running a server of its own");

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
