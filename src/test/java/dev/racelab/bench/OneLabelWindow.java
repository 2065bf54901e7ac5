package dev.racelab.bench;

import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;

/**
 * The smallest JavaFX window there is, a label in a window as large as RaceLab's: the peer {@code
 * scripts/bench windowmemory} sets beside RaceLab's window, started with the same memory options,
 * to show what the runtime itself holds before any application does anything.
 */
public final class OneLabelWindow extends Application {

    /** The window's title, as the benchmark looks for it. */
    static final String TITLE = "One label";

    @Override
    public void start(Stage stage) {
        stage.setTitle(TITLE);
        stage.setScene(new Scene(new StackPane(new Label("A JavaFX window with one label")), 1600, 1000));
        stage.show();
    }

    /** Started from a class that is not an {@code Application}, as JavaFX on the class path needs. */
    public static final class Main {
        private Main() {
        }

        public static void main(String[] args) {
            Application.launch(OneLabelWindow.class, args);
        }
    }
}
