package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.backend.Backends;
import dev.racelab.engine.Service;
import dev.racelab.ui.startup.ServerDialog;
import dev.racelab.ui.startup.ServerStartup;
import javafx.scene.control.Button;
import javafx.scene.control.DialogPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The servers start as the window opens, before its first frame: a server that cannot be reached
 * fails at once, maybe before the window proper exists, and is offered the connection dialog once
 * it does, one dialog per server.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class EarlyServerFailureWindowTest {

    @TempDir
    static Path dir;

    private final ServerStartup startup = new ServerStartup();
    private final AtomicReference<RaceLabWindow> opened = new AtomicReference<>();
    private Backends backends;

    @Start
    void start(Stage stage) throws Exception {
        backends = UnreachableServers.backends(startup);
        RaceLabWindow.open(stage, backends, new Settings(dir.resolve("early.properties")), startup, opened::set);
    }

    @AfterEach
    void closeServers() {
        backends.close();
    }

    @Test
    void aServerThatFailsBeforeTheWindowIsBuiltIsOfferedItsDialogOnceTheWindowIsThere(FxRobot robot)
            throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.await("both servers said they are not available", () -> startup.statusProperty(Service.POSTGRES).get()
                .endsWith("not available") && startup.statusProperty(Service.REDIS).get().endsWith("not available"));
        ui.await("the window proper is built", () -> opened.get() != null);

        // Each dialog the window offers is put off as it comes (the condition is asked on the FX
        // thread), until both servers' have come.
        Set<String> offered = new HashSet<>();
        ui.await("both servers' dialogs were offered", () -> {
            robot.lookup(".server-dialog").tryQuery().ifPresent(pane -> {
                DialogPane dialog = (DialogPane) pane;
                Stage shown = (Stage) dialog.getScene().getWindow();
                assertNotNull(shown.getOwner(), "the dialog belongs to the window");
                offered.add(shown.getTitle());
                ((Button) dialog.lookupButton(ServerDialog.LATER)).fire();
            });
            return offered.size() == 2;
        });
        assertEquals(Set.of("PostgreSQL — RaceLab", "Redis — RaceLab"), offered);
        assertTrue(robot.lookup(".server-dialog").tryQuery().isEmpty(), "no dialog offered twice");
    }
}
