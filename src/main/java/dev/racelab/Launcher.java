package dev.racelab;

import dev.racelab.backend.DataHome;
import dev.racelab.cli.Cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where RaceLab starts. With no arguments it opens the window; with arguments it is the command
 * line. This class is not the JavaFX {@code Application}, so {@code java -jar racelab.jar} works
 * from a plain class path and the command line never loads JavaFX.
 */
public final class Launcher {

    private Launcher() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            keepJavaFxLibrariesInDataHome();
            dev.racelab.ui.Desktop.launch();
            return;
        }
        System.setOut(stream(FileDescriptor.out, "sun.stdout.encoding"));
        System.setErr(stream(FileDescriptor.err, "sun.stderr.encoding"));
        Cli cli = new Cli(System.getenv(), DataHome.resolve(System.getenv()), System.out, System.err);
        int code = cli.run(Arrays.asList(args));
        System.out.flush();
        if (!shuttingDown()) {
            System.exit(code);
        }
    }

    /**
     * The command line writes UTF-8 whatever the locale. Java 17 writes standard output in the
     * locale's encoding, which in a POSIX locale (a plain {@code su -} login, a cron job) is
     * US-ASCII: every dash and dot of a summary became "?". The terminal such a login runs in still
     * shows UTF-8, JSON is UTF-8 by its definition, and a summary piped to a file reads the same
     * bytes whatever the locale of the shell that made it. A Windows console, which Java names
     * in {@code consoleProperty} and shows in its own code page, is written in that code page.
     */
    private static PrintStream stream(FileDescriptor fd, String consoleProperty) {
        Charset charset = StandardCharsets.UTF_8;
        String console = System.getProperty(consoleProperty);
        if (console != null) {
            try {
                charset = Charset.forName(console);
            } catch (IllegalArgumentException unknown) {
                // A code page this Java does not know: UTF-8, as elsewhere.
            }
        }
        return new PrintStream(new BufferedOutputStream(new FileOutputStream(fd), 8192), true, charset);
    }

    /**
     * JavaFX copies its native libraries out of the jar before it loads them, by default into
     * {@code ~/.openjfx/cache}: RaceLab keeps them with the rest of its files, in the data home, so
     * that removing RaceLab's data removes them too and nothing of it is left elsewhere in the home.
     */
    private static void keepJavaFxLibrariesInDataHome() {
        if (System.getProperty("javafx.cachedir") == null) {
            System.setProperty("javafx.cachedir", DataHome.resolve(System.getenv()).resolve("javafx").toString());
        }
    }

    /**
     * Whether the JVM is already shutting down (SIGTERM, Ctrl-C): then {@code System.exit} would
     * block for ever, and returning lets the shutdown finish.
     */
    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }
}
