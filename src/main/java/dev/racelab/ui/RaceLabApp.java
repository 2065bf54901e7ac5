package dev.racelab.ui;

import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.stage.Stage;

/** The JavaFX application: builds the window. */
public final class RaceLabApp extends Application {

    @Override
    public void start(Stage stage) {
        stage.setTitle("RaceLab");
        stage.setScene(new Scene(new Label("RaceLab"), 800, 600));
        stage.show();
    }
}
