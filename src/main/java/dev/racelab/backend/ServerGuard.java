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

    /** Waits for the end of its input; then, if the process is still the slot's server, signals it. */
    private static final String SCRIPT = "read -r line || { exe=$(readlink \"/proc/$1/exe\"); "
            + "cwd=$(readlink \"/proc/$1/cwd\"); case \"$exe\" in \"$2\"/*) [ \"$cwd\" = \"$3\" ] "
            + "&& kill \"-$4\" \"$1\";; esac; }";

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

    /** Disarms the watchman: the shell ends without signalling anyone. */
    @Override
    public void close() {
        shell.destroy();
        try {
            if (!shell.waitFor(2, TimeUnit.SECONDS)) {
                shell.destroyForcibly();
            }
        } catch (InterruptedException e) {
            shell.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            shell.getOutputStream().close();
        } catch (IOException ignored) {
            // The shell is gone; so is its end of the pipe.
        }
    }
}
