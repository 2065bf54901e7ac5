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
import javafx.beans.binding.BooleanExpression;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;
import org.controlsfx.control.StatusBar;

/**
 * The status bar: what serves PostgreSQL and Redis, and the lab's own topology if it has one (busy
 * while any starts), the file saved or
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
        // The shared servers, and the lab's own topology if it has one (replica-read, redis-failover):
        // what the run on screen uses is named, not only the servers it does not.
        textProperty().bind(Bindings.createStringBinding(this::describe, session.labProperty(),
                startup.statusProperty(Service.POSTGRES), startup.statusProperty(Service.REDIS),
                startup.statusProperty(Service.PG_STANDBY), startup.statusProperty(Service.REDIS_SENTINEL)));
        BooleanExpression busy = startup.busyProperty(Service.values()[0]);
        for (Service service : Service.values()) {
            busy = busy.or(startup.busyProperty(service));
        }
        progressProperty().bind(Bindings.when(busy).then(-1.0).otherwise(0.0));
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

    private String describe() {
        StringBuilder line = new StringBuilder();
        for (Service service : Service.values()) {
            boolean ownTopology = !service.shared() && session.labProperty().get() != null
                    && session.labProperty().get().services().contains(service);
            if (service.shared() || ownTopology) {
                line.append(line.length() == 0 ? "" : "   ·   ").append(startup.statusProperty(service).get());
            }
        }
        return line.toString();
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
