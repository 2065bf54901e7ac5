package dev.racelab.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A watchman outside RaceLab's JVM for one embedded server it started: a shell waiting to read
 * from a pipe only the JVM writes to. If the JVM ends without stopping its server (killed, or its
 * display gone: GTK then ends the process without running its shutdown hooks), the pipe closes, the
 * shell reads its end, and stops the server, as a user would with {@code kill}, but only if that
 * process is still RaceLab's server of that slot (its executable under the slot's binaries, its
 * working directory the slot's: {@link Slot#isServerOfThisSlot} in shell). A normal stop disarms
 * the watchman first ({@link #close}), so it never signals a process id the system has handed to
 * another program since.
 *
 * <p>Where there is no shell or no {@code /proc} to check the process by, there is no watchman;
 * the next start stops what a killed RaceLab left running, as it always has.
 */
final class ServerGuard implements AutoCloseable {

    /**
     * Waits for a line or the end of its input. A line (RaceLab disarming it) ends it quietly; the
     * end, if the process is still the slot's server, makes it signal the server, and let it run
     * if it was stopped (a frozen server would keep the signal pending for ever).
     */
    private static final String SCRIPT = "read -r line || { exe=$(readlink \"/proc/$1/exe\"); "
            + "cwd=$(readlink \"/proc/$1/cwd\"); case \"$exe\" in \"$2\"/*) [ \"$cwd\" = \"$3\" ] "
            + "&& kill \"-$4\" \"$1\" && kill -CONT \"$1\";; esac; }";

    private final Process shell;

    private ServerGuard(Process shell) {
        this.shell = shell;
    }

    /**
     * Watches {@code server} (RaceLab's, from {@code binaries}, run in {@code workingDirectory}): if
     * this JVM ends with it still running, it is sent {@code signal} ({@code INT}: PostgreSQL's fast
     * shutdown; {@code TERM}: Redis's). Empty where the system offers no way to watch.
     */
    static Optional<ServerGuard> watch(ProcessHandle server, Path binaries, Path workingDirectory, String signal) {
        Path sh = Path.of("/bin/sh");
        if (!Files.isExecutable(sh) || !Files.isDirectory(Path.of("/proc/self"))) {
            return Optional.empty();
        }
        try {
            Process shell = new ProcessBuilder(List.of(sh.toString(), "-c", SCRIPT, "racelab-guard",
                    Long.toString(server.pid()), binaries.toRealPath().toString(),
                    workingDirectory.toRealPath().toString(), signal))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return Optional.of(new ServerGuard(shell));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Disarms the watchman: it is told a line, which ends it without signalling anyone, and is
     * waited for. (Not by a signal first: {@code destroy} also closes its input, which is what arms
     * it, and a shell started with SIGTERM ignored would then signal the server being stopped.)
     */
    @Override
    public void close() {
        try {
            shell.getOutputStream().write('\n');
            shell.getOutputStream().close();
        } catch (IOException gone) {
            // The shell has ended already: nothing is left to disarm.
        }
        try {
            if (!shell.waitFor(2, TimeUnit.SECONDS)) {
                shell.destroyForcibly();
            }
        } catch (InterruptedException e) {
            shell.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** For tests: ends this JVM's side of the pipe as its death would, leaving the shell to act. */
    void abandon() throws IOException {
        shell.getOutputStream().close();
    }

    /** For tests: the shell's process. */
    ProcessHandle shell() {
        return shell.toHandle();
    }
}
