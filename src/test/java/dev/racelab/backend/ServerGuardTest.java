package dev.racelab.backend;

import dev.racelab.support.Poll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The watchman RaceLab leaves beside each embedded server signals it when RaceLab's end closes the
 * pipe, and nothing else: not a process run from other binaries or in another directory (a pid
 * handed on), not after a normal stop disarmed it, and it leaves no shell behind. A "server" here
 * is a copy of {@code sleep} in a slot-like folder, so that its executable and directory are known.
 */
@Tag("engine")
@EnabledOnOs(OS.LINUX)
class ServerGuardTest {

    @TempDir
    Path dir;
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopAll() {
        started.forEach(Process::destroyForcibly);
    }

    private Path binaries() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.copy(Path.of("/bin/sleep"), bin.resolve("server"), StandardCopyOption.REPLACE_EXISTING);
        return bin;
    }

    /** A server run from the slot's binaries in the slot's folder, and its watchman. */
    private record Watched(Process server, ServerGuard guard) {
    }

    private Watched watched() throws Exception {
        Path bin = binaries();
        Path slot = Files.createDirectories(dir.resolve("slot-0"));
        Process server = server(bin.resolve("server"), slot);
        return new Watched(server, ServerGuard.watch(server.toHandle(), bin, slot, "TERM").orElseThrow());
    }

    private Process server(Path executable, Path workingDirectory) throws Exception {
        Process process = new ProcessBuilder(executable.toString(), "300").directory(workingDirectory.toFile()).start();
        started.add(process);
        return process;
    }

    @Test
    void whenRaceLabsEndClosesThePipeTheServerIsSignalled() throws Exception {
        Watched watched = watched();
        Process server = watched.server();
        ServerGuard guard = watched.guard();
        guard.abandon();
        assertTrue(server.waitFor(10, TimeUnit.SECONDS), "the server was signalled");
        assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> !guard.shell().isAlive()), "and the shell ended");
    }

    @Test
    void aStoppedServerIsLetRunSoThatTheSignalTakes() throws Exception {
        Watched watched = watched();
        Process server = watched.server();
        ServerGuard guard = watched.guard();
        Slot.signal("-STOP", List.of(server.toHandle()));
        guard.abandon();
        assertTrue(server.waitFor(10, TimeUnit.SECONDS), "the frozen server was signalled and let run");
    }

    @Test
    void aProcessInAnotherDirectoryOrFromOtherBinariesIsLeftAlone() throws Exception {
        Path bin = binaries();
        Path slot = Files.createDirectories(dir.resolve("slot-0"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Process inAnotherDirectory = server(bin.resolve("server"), elsewhere);
        Process fromOtherBinaries = server(Path.of("/bin/sleep"), slot);
        List<ServerGuard> guards = List.of(
                ServerGuard.watch(inAnotherDirectory.toHandle(), bin, slot, "TERM").orElseThrow(),
                ServerGuard.watch(fromOtherBinaries.toHandle(), bin, slot, "TERM").orElseThrow());
        for (ServerGuard guard : guards) {
            guard.abandon();
            assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> !guard.shell().isAlive()), "the shell ended");
        }
        assertTrue(inAnotherDirectory.isAlive(), "not the slot's directory: not the slot's server");
        assertTrue(fromOtherBinaries.isAlive(), "not the slot's binaries: not the slot's server");
    }

    @Test
    void aNormalStopDisarmsItAndLeavesNoShell() throws Exception {
        Watched watched = watched();
        Process server = watched.server();
        ServerGuard guard = watched.guard();
        guard.close();
        assertFalse(guard.shell().isAlive(), "the shell is gone once close returns");
        assertFalse(server.waitFor(1, TimeUnit.SECONDS), "and it signalled nobody");
    }
}
