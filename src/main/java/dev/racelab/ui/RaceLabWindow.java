package dev.racelab.ui;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Run;
import dev.racelab.labs.Labs;
import dev.racelab.ui.recordings.RecordingFiles;
import dev.racelab.ui.shell.MainView;
import dev.racelab.ui.startup.ServerStartup;
import javafx.beans.binding.Bindings;
import javafx.scene.Scene;
import javafx.stage.Stage;

import java.time.Duration;

/**
 * Builds the window on a stage from its collaborators; the application and the UI tests both
 * come through here, so the tests drive the same window users see.
 */
public final class RaceLabWindow {

    private final MainView view;
    private final Session session;

    private RaceLabWindow(MainView view, Session session) {
        this.view = view;
        this.session = session;
    }

    /**
     * Shows the window on {@code stage} at once; servers come up in the background, and a server
     * that cannot be used is offered the connection dialog.
     */
    public static RaceLabWindow show(Stage stage, Backends backends, Settings settings, ServerStartup startup) {
        Labs labs = new Labs(backends);
        Session session = new Session(Clock.system(), id -> labs.find(id).orElse(null));
        MainView view = new MainView(session, labs, backends, settings, startup);
        startup.attach(backends, view::askForServer);
        javafx.geometry.Rectangle2D screen = javafx.stage.Screen.getPrimary().getVisualBounds();
        Scene scene = new Scene(view, Math.min(1440, screen.getWidth() * 0.95), Math.min(900, screen.getHeight() * 0.92));
        scene.getStylesheets().add(RaceLabWindow.class.getResource("racelab.css").toExternalForm());
        view.installShortcuts(scene);
        stage.titleProperty().bind(Bindings.createStringBinding(() -> {
            RecordingFiles.Source source = view.recordings().sourceProperty().get();
            return source == null || !session.replayingProperty().get() ? "RaceLab"
                    : source.file().getFileName() + " — RaceLab";
        }, view.recordings().sourceProperty(), session.replayingProperty()));
        stage.setScene(scene);
        stage.setMinWidth(960);
        stage.setMinHeight(600);
        stage.setOnHiding(e -> {
            Run run = session.run();
            if (run != null && run.phase().live()) {
                run.stop();
                try {
                    run.awaitOutcome(Duration.ofSeconds(5));
                } catch (Exception ignored) {
                    // Closing anyway; the servers' shutdown ends what is left.
                }
            }
        });
        view.selectLab(settings.get(Settings.LAB).orElse(""));
        afterFirstFrame(scene, startup::startAll);
        stage.show();
        if (settings.problem() != null) {
            view.banner().showIdle(settings.problem());
        }
        return new RaceLabWindow(view, session);
    }

    /**
     * Runs {@code action} once the first frame is laid out and handed to the renderer: starting the
     * servers (an embedded PostgreSQL's unpacking and start take both cores of a small machine)
     * before that would hold the first frame back by a second or more.
     */
    private static void afterFirstFrame(Scene scene, Runnable action) {
        Runnable[] once = new Runnable[1];
        once[0] = () -> {
            scene.removePostLayoutPulseListener(once[0]);
            javafx.application.Platform.runLater(action);
        };
        scene.addPostLayoutPulseListener(once[0]);
    }

    public MainView view() {
        return view;
    }

    public Session session() {
        return session;
    }
}
