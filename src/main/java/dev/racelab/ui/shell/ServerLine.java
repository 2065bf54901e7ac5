package dev.racelab.ui.shell;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Service;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.model.Settings;
import dev.racelab.ui.exports.ExportFiles;
import dev.racelab.ui.recordings.RecordingFiles;
import dev.racelab.ui.startup.ServerDialog;
import dev.racelab.ui.startup.ServerStartup;
import javafx.beans.binding.Bindings;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;
import org.controlsfx.control.StatusBar;

/**
 * The status bar: what serves PostgreSQL and Redis (busy while either starts), the file saved or
 * exported last, and Servers…, which offers the connection dialog; so does the menu, and so does
 * start-up when a server cannot be reached.
 */
final class ServerLine extends StatusBar {

    private final Region window;
    private final Session session;
    private final Backends backends;
    private final Settings settings;
    private final ServerStartup startup;

    ServerLine(Region window, Session session, Backends backends, Settings settings, ServerStartup startup,
            RecordingFiles recordings, ExportFiles exports) {
        this.window = window;
        this.session = session;
        this.backends = backends;
        this.settings = settings;
        this.startup = startup;
        textProperty().bind(Bindings.concat(startup.statusProperty(Service.POSTGRES), "   ·   ",
                startup.statusProperty(Service.REDIS)));
        progressProperty().bind(Bindings.when(startup.busyProperty(Service.POSTGRES)
                .or(startup.busyProperty(Service.REDIS))).then(-1.0).otherwise(0.0));
        Button servers = new Button("Servers…");
        servers.setOnAction(e -> askForServer(Service.POSTGRES, null));
        Label saved = new Label();
        saved.getStyleClass().add("save-note");
        saved.textProperty().bind(Bindings.createStringBinding(() -> exports.exportedProperty().get() != null
                        ? "Exported as " + exports.exportedProperty().get().getFileName()
                        : recordings.savedProperty().get() == null ? ""
                        : "Saved as " + recordings.savedProperty().get().getFileName(),
                recordings.savedProperty(), exports.exportedProperty()));
        getRightItems().addAll(saved, servers);
    }

    /** Offers the connection dialog for {@code service}; {@code problem} says what went wrong, if anything. */
    void askForServer(Service service, String problem) {
        if (window.getScene() == null) {
            return;
        }
        ServerDialog dialog = new ServerDialog(window.getScene().getWindow(), service, problem, backends, settings);
        dialog.showAndWait().ifPresent(choice -> {
            if (choice == ServerDialog.CONNECT || choice == ServerDialog.EMBEDDED) {
                startup.start(service);
                session.reset();
            }
        });
    }
}
