package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.files.PartialFile;
import dev.racelab.ui.startup.ServerStartup;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.stage.Stage;

import java.nio.file.Path;
import java.util.Map;

/**
 * The JavaFX application and the window's composition root: settings, servers, labs and the
 * window, built once and passed down. Servers are stopped when the window closes, and by a
 * shutdown hook when the process is told to end some other way.
 */
public final class RaceLabApp extends Application {

    private Backends backends;
    private Thread shutdownHook;

    @Override
    public void start(Stage stage) {
        Map<String, String> env = System.getenv();
        Path home = DataHome.resolve(env);
        Settings settings = new Settings(home.resolve("settings.properties"));
        ServerStartup startup = new ServerStartup();
        BackendSettings chosen;
        String problem = null;
        try {
            chosen = BackendSettings.resolve(settings.get(Settings.POSTGRES_URL).orElse(null),
                    settings.get(Settings.REDIS_URL).orElse(null), env);
        } catch (IllegalArgumentException e) {
            chosen = BackendSettings.embedded();
            problem = "A saved or configured server address is not valid (" + e.getMessage()
                    + "); RaceLab uses its embedded servers instead.";
        }
        backends = new Backends(chosen, home, startup);
        // A signal ends the process: a file being saved is not finished, and its temporary file goes.
        shutdownHook = new Thread(() -> {
            PartialFile.abandonAll();
            backends.close();
        }, "racelab-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        String addressProblem = problem;
        RaceLabWindow.open(stage, backends, settings, startup, window -> {
            if (addressProblem != null) {
                window.view().banner().showIdle(addressProblem);
            }
        });
        stage.setOnHidden(e -> Platform.exit());
    }

    @Override
    public void stop() {
        PartialFile.abandonAll();
        if (backends != null) {
            backends.close();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // The hook runs anyway; closing twice is harmless.
            }
        }
    }
}
