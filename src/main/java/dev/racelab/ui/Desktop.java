package dev.racelab.ui;

/** Starts the window; explains instead of failing when there is no display to show it on. */
public final class Desktop {

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
        javafx.application.Application.launch(RaceLabApp.class);
    }
}
