package dev.racelab.ui;

import java.util.logging.Filter;
import java.util.logging.Logger;

/** Starts the window; explains instead of failing when there is no display to show it on. */
public final class Desktop {

    /**
     * JavaFX's logger, held here: the logging system keeps loggers weakly, and one collected
     * before JavaFX asks for it again would come back without the filter set on it.
     */
    private static final Logger JAVAFX = Logger.getLogger("javafx");
    /** The one line JavaFX says of being loaded from the class path. */
    private static final String CLASS_PATH_WARNING = "Unsupported JavaFX configuration";

    private Desktop() {
    }

    public static void launch() {
        String os = System.getProperty("os.name", "").toLowerCase();
        if (os.contains("linux") && System.getenv("DISPLAY") == null && System.getenv("WAYLAND_DISPLAY") == null
                && !"Monocle".equals(System.getProperty("glass.platform"))) {
            System.err.println("racelab: there is no display to open the window on (DISPLAY is not set). "
                    + "Use the command line instead: racelab list, racelab run LAB (see racelab --help).");
            System.exit(1);
        }
        quietClassPathWarning();
        javafx.application.Application.launch(RaceLabApp.class);
    }

    /**
     * JavaFX warns on every start that its classes came from the class path rather than as named
     * modules. That is how RaceLab ships it, in its one jar (the installers' runtime holds no
     * JavaFX either), so the line tells a user nothing they can act on: it is dropped, and only it;
     * every other JavaFX message still reaches the terminal.
     */
    private static void quietClassPathWarning() {
        Filter before = JAVAFX.getFilter();
        JAVAFX.setFilter(record -> !(record.getMessage() != null && record.getMessage().startsWith(CLASS_PATH_WARNING))
                && (before == null || before.isLoggable(record)));
    }
}
