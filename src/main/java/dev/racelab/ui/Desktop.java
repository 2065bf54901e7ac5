package dev.racelab.ui;

/** Starts the window. */
public final class Desktop {

    private Desktop() {
    }

    public static void launch() {
        javafx.application.Application.launch(RaceLabApp.class);
    }
}
