package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.engine.RunPhase;
import dev.racelab.support.CuttableProxy;
import dev.racelab.support.TestServers;
import dev.racelab.ui.startup.ServerStartup;
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
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server that dies mid-run (the connection to it cut by a proxy): the run ends with ERROR and
 * names the server, the timeline recorded so far stays, and the window stays open.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class ServerDiesMidRunWindowTest {

    @TempDir
    static Path dir;

    private Stage stage;
    private Backends backends;
    private CuttableProxy proxy;
    private RaceLabWindow window;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        PgAddress real = TestServers.postgres().address();
        proxy = new CuttableProxy(real.host(), real.port());
        PgAddress viaProxy = new PgAddress("127.0.0.1", proxy.port(), real.database(), real.user(), null, Map.of());
        ServerStartup startup = new ServerStartup();
        backends = new Backends(new BackendSettings(Optional.of(viaProxy), Optional.of(TestServers.redis().address())),
                DataHome.resolve(System.getenv()), startup);
        window = RaceLabWindow.show(stage, backends, new Settings(dir.resolve("dies.properties")), startup);
    }

    @AfterEach
    void closeServers() {
        proxy.close();
        backends.close();
    }

    @Test
    void aServerThatDiesMidRunEndsTheRunWithErrorAndKeepsTheTimeline(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        ui.setSpinner("Operations per worker", 5000);
        ui.setDelay("all workers", "after-read", "2");
        ui.press("run");
        ui.awaitRun("the run completed more than 20 operations", run -> run.opsCompleted() > 20);
        proxy.cut();
        String verdict = ui.awaitVerdict(v -> v.startsWith("ERROR") || v.startsWith("RACE") || v.startsWith("SAFE"));
        // Whichever of the run's own sessions meets the cut first is named: a client's or the observer's.
        assertTrue(verdict.matches("ERROR — (client-\\d+|the observer of (counter row|PostgreSQL locks)) failed"), verdict);
        assertTrue(window.session().outcomeProperty().get().explanation().startsWith("PostgreSQL at 127.0.0.1:"
                + proxy.port()), window.session().outcomeProperty().get().explanation());
        assertTrue(stage.isShowing());
        assertEquals(RunPhase.ENDED, window.session().run().phase());
        assertTrue(window.view().timeline().model().latest() > 0, "what was recorded before is still shown");
        assertFalse(window.view().timeline().model().laneCount() == 0);
    }
}
