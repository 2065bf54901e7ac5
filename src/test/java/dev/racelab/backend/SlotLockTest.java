package dev.racelab.backend;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A slot stays this process's while it holds it, whatever else the process does with slots: a
 * second server of the same kind started in the same process (as tests do) or a look at the other
 * slots for leftovers must not hand it over. On Linux, closing any channel on a lock file drops the
 * process's lock on it; another RaceLab would then find the slot free and stop its live server
 * as a leftover (seen as an embedded Redis dying under a test run while another build started).
 */
@Tag("engine")
class SlotLockTest {

    @TempDir
    Path root;

    @Test
    void aSlotHeldStaysHeldWhenTheSameProcessTakesAnotherAndLooksForLeftovers() throws Exception {
        try (Slot first = Slot.acquire(root); Slot second = Slot.acquire(root)) {
            assertEquals("slot-0", first.dir().getFileName().toString());
            assertEquals("slot-1", second.dir().getFileName().toString());
            second.stopLeftoversOfFreeSlots(dir -> dir.resolve("server.pid"), root.resolve("bin"), dir -> dir);
            assertEquals("held", probe(first.dir().resolve("slot.lock")), "slot-0, seen by another process");
            assertEquals("held", probe(second.dir().resolve("slot.lock")), "slot-1, seen by another process");
        }
        assertEquals("free", probe(root.resolve("slot-0/slot.lock")), "released once closed");
    }

    @Test
    void aSlotClosedCanBeTakenAgainByTheSameProcess() throws Exception {
        Path dir;
        try (Slot slot = Slot.acquire(root)) {
            dir = slot.dir();
        }
        try (Slot again = Slot.acquire(root)) {
            assertEquals(dir, again.dir());
            assertEquals("held", probe(again.dir().resolve("slot.lock")));
        }
    }

    /** What another process finds when it tries to lock {@code lockFile}: "held" or "free". */
    private static String probe(Path lockFile) throws IOException, InterruptedException {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LockProbe.class.getName(), lockFile.toString())
                .redirectErrorStream(true).start();
        try {
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the probe did not finish");
            return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        } finally {
            child.destroyForcibly();
        }
    }

    /** The other process: tries the lock once and says what it found. */
    public static final class LockProbe {
        public static void main(String[] args) throws IOException {
            try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE)) {
                FileLock lock = channel.tryLock();
                System.out.print(lock == null ? "held" : "free");
            }
        }
    }
}
