package dev.racelab.ui.startup;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Service;
import dev.racelab.tasks.Background;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Brings the servers up in the background while the window is already usable, one thread per
 * server, and reports each step as a status line. A failure is handed to {@code onFailure} on the
 * FX thread, which offers the connection dialog.
 *
 * <p>Also the {@link StartupListener} of the window's {@link Backends}: progress arrives on the
 * starting threads and is passed to the FX thread (a handful of messages per start).
 */
public final class ServerStartup implements StartupListener {

    private final Map<Service, ReadOnlyStringWrapper> status = new EnumMap<>(Service.class);
    private final Map<Service, ReadOnlyBooleanWrapper> busy = new EnumMap<>(Service.class);
    private final Map<Service, ReadOnlyBooleanWrapper> ready = new EnumMap<>(Service.class);
    private Backends backends;
    private BiConsumer<Service, String> onFailure = (service, message) -> { };

    public ServerStartup() {
        for (Service service : Service.values()) {
            status.put(service, new ReadOnlyStringWrapper(this, service.name(), service.displayName() + ": waiting"));
            busy.put(service, new ReadOnlyBooleanWrapper(this, service.name() + "-busy"));
            ready.put(service, new ReadOnlyBooleanWrapper(this, service.name() + "-ready"));
        }
    }

    /** Connects this to the backends it reports on (they are built with this as their listener). */
    public void attach(Backends backends, BiConsumer<Service, String> onFailure) {
        this.backends = backends;
        this.onFailure = onFailure;
    }

    public ReadOnlyStringProperty statusProperty(Service service) {
        return status.get(service).getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busyProperty(Service service) {
        return busy.get(service).getReadOnlyProperty();
    }

    /** Whether the server is up and serving: false until its start succeeds, and again while it restarts or after it failed. */
    public ReadOnlyBooleanProperty readyProperty(Service service) {
        return ready.get(service).getReadOnlyProperty();
    }

    /** Starts every server in the background. */
    public void startAll() {
        for (Service service : Service.values()) {
            if (service.shared()) {
                start(service);
            }
        }
    }

    /** Starts (or reconnects) one server in the background. */
    public void start(Service service) {
        if (busy.get(service).get()) {
            return;
        }
        busy.get(service).set(true);
        ready.get(service).set(false);
        Background.run("start-" + service.name().toLowerCase(), () -> {
            try {
                backends.ensure(service);
                String served = backends.describe(service);
                Platform.runLater(() -> {
                    status.get(service).set(served);
                    ready.get(service).set(true);
                });
            } catch (BackendException e) {
                notAvailable(service, e.getMessage());
            } finally {
                Platform.runLater(() -> busy.get(service).set(false));
            }
        }, e -> notAvailable(service, service.displayName() + " could not start: " + Background.said(e)));
    }

    private void notAvailable(Service service, String message) {
        Platform.runLater(() -> {
            status.get(service).set(service.displayName() + ": not available");
            onFailure.accept(service, message);
        });
    }

    @Override
    public void progress(Service service, Stage stage, String message) {
        String text = stage == Stage.READY ? message.replaceFirst("^Ready: ", "") : message;
        Platform.runLater(() -> {
            status.get(service).set(text);
            if (stage == Stage.READY && !service.shared()) {
                // A lab's own topology is started by its run, not by start(): ready once it says so.
                ready.get(service).set(true);
            }
        });
    }
}
