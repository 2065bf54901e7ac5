package dev.racelab;

import dev.racelab.backend.DataHome;
import dev.racelab.cli.Cli;

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
            dev.racelab.ui.Desktop.launch();
            return;
        }
        Cli cli = new Cli(System.getenv(), DataHome.resolve(System.getenv()), System.out, System.err);
        int code = cli.run(Arrays.asList(args));
        System.out.flush();
        if (!shuttingDown()) {
            System.exit(code);
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
