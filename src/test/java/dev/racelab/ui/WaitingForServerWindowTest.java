package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.support.TestServers;
import dev.racelab.ui.startup.ServerStartup;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run pressed while its PostgreSQL is still coming up says it waits for PostgreSQL, and what
 * PostgreSQL is doing, instead of "Preparing… 0 of 400 operations done". The PostgreSQL here
 * takes connections and never answers, so it stays "connecting" for RaceLab's login bound (5 s);
 * slow, as it then waits out that bound for the run's ERROR.
 */
@Tag("ui")
@Tag("slow")
@ExtendWith(ApplicationExtension.class)
class WaitingForServerWindowTest {

    @TempDir
    static Path dir;

    private Backends backends;
    private ServerSocket silent;
    private final List<Socket> taken = new ArrayList<>();
    private RaceLabWindow window;

    @Start
    void start(Stage stage) throws Exception {
        silent = new ServerSocket(0);
        Thread accept = new Thread(() -> {
            try {
                while (true) {
                    taken.add(silent.accept());
                }
            } catch (Exception closed) {
                // The test is over.
            }
        }, "silent-postgres");
        accept.setDaemon(true);
        accept.start();
        PgAddress real = TestServers.postgres().address();
        PgAddress mute = new PgAddress("127.0.0.1", silent.getLocalPort(), real.database(), real.user(), null, Map.of());
        ServerStartup startup = new ServerStartup();
        backends = new Backends(new BackendSettings(Optional.of(mute), Optional.of(TestServers.redis().address())),
                DataHome.resolve(System.getenv()), startup);
        window = RaceLabWindow.show(stage, backends, new Settings(dir.resolve("waiting.properties")), startup);
        // Run pressed before the servers start, which they do once the first frame is drawn: however
        // slow the machine, the run is pressed before PostgreSQL is up (and before RaceLab gives up
        // on a server that never answers).
        window.view().selectLab("counter");
        window.session().start();
    }

    @AfterEach
    void closeServers() throws Exception {
        silent.close();
        for (Socket socket : taken) {
            socket.close();
        }
        backends.close();
    }

    @Test
    void aRunPressedBeforePostgresIsUpSaysItWaitsForPostgres(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        assertEquals("Waiting for PostgreSQL…", ui.awaitVerdict(v -> !v.equals("Ready")));
        String explanation = robot.lookup(".verdict-explanation").queryAs(Label.class).getText();
        assertTrue(explanation.startsWith("The run starts as soon as PostgreSQL is ready: Connecting to PostgreSQL at "
                + "127.0.0.1:" + silent.getLocalPort()), explanation);
        assertTrue(explanation.endsWith("0 of " + window.session().run().spec().workers()
                * (long) window.session().run().spec().ops() + " operations done."), explanation);

        // PostgreSQL never answers: the run ends, named, and the window offers to choose a server.
        String verdict = ui.awaitVerdict(v -> v.startsWith("ERROR") || v.startsWith("RACE") || v.startsWith("SAFE"));
        assertTrue(verdict.startsWith("ERROR"), verdict);
        ui.await("the server dialog opens", () -> robot.lookup(".server-dialog").tryQuery().isPresent());
        robot.interact(() -> robot.lookup(".server-dialog").queryAll().forEach(d -> d.getScene().getWindow().hide()));
    }
}
