package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.support.TestServers;
import dev.racelab.ui.startup.ServerStartup;
import javafx.scene.control.DialogPane;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
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
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server that is not there and addresses that are wrong: the window names the server and the
 * reason, refuses the bad address without closing anything, and a run ends with ERROR.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class UnreachableServerWindowTest {

    @TempDir
    static Path dir;

    private Stage stage;
    private Backends backends;
    private int closedPort;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        PgAddress real = TestServers.postgres().address();
        PgAddress nowhere = new PgAddress("127.0.0.1", closedPort, real.database(), real.user(), null, Map.of());
        ServerStartup startup = new ServerStartup();
        backends = new Backends(new BackendSettings(Optional.of(nowhere), Optional.of(TestServers.redis().address())),
                DataHome.resolve(System.getenv()), startup);
        RaceLabWindow.show(stage, backends, new Settings(dir.resolve("unreachable.properties")), startup);
    }

    @AfterEach
    void closeServers() {
        backends.close();
    }

    @Test
    void anUnreachableServerIsNamedAndABadAddressInTheDialogIsRefusedWithoutClosingAnything(FxRobot robot)
            throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.await("the server dialog opens", () -> robot.lookup(".server-dialog").tryQuery().isPresent());
        DialogPane dialog = robot.lookup(".server-dialog").queryAs(DialogPane.class);
        assertEquals("PostgreSQL is not available", dialog.getHeaderText());
        assertTrue(robot.from(dialog).lookup(".dialog-problem").queryAs(Label.class).getText()
                .startsWith("PostgreSQL at 127.0.0.1:" + closedPort + " cannot be reached"));

        replaceUrl(robot, "postgresql://nobody@127.0.0.1:" + closedPort + "/x");
        robot.clickOn("Connect");
        ui.await("the dialog says the address cannot be reached", () -> result(robot).contains("cannot be reached"));
        assertTrue(dialog.getScene().getWindow().isShowing(), "a bad address keeps the dialog open");

        replaceUrl(robot, "mysql://somewhere");
        robot.clickOn("Connect");
        ui.await("the dialog refuses the address", () -> result(robot).startsWith("That address does not work"));

        robot.clickOn("Not now");
        assertTrue(stage.isShowing());
        ui.chooseLab("Lost increments");
        ui.press("run");
        String verdict = ui.awaitVerdict(v -> v.startsWith("ERROR") || v.startsWith("RACE") || v.startsWith("SAFE"));
        assertEquals("ERROR — could not prepare the lab", verdict);
        assertTrue(stage.isShowing(), "the window stays open");

        robot.clickOn("Servers…");
        ui.await("the server dialog opens again", () -> robot.lookup(".server-dialog").tryQuery().isPresent());
        replaceUrl(robot, TestServers.postgres().address().secretUrl());
        robot.clickOn("#server-password").write("hunter2");
        robot.clickOn("Connect");
        ui.await("the dialog closes on a good address", () -> robot.lookup(".server-dialog").tryQuery().isEmpty());
        String saved = java.nio.file.Files.readString(dir.resolve("unreachable.properties"));
        assertTrue(saved.contains("postgres.url="), "the chosen address is remembered: " + saved);
        assertFalse(saved.contains("hunter2"), "but not its password, which the user did not ask to keep");
        ui.setSpinner("Operations per worker", 5);
        ui.press("run");
        String good = ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE"));
        assertTrue(good.startsWith("SAFE") || good.startsWith("RACE"), good);
    }

    private static void replaceUrl(FxRobot robot, String url) {
        TextField field = robot.lookup("#server-url").queryAs(TextField.class);
        robot.interact(() -> field.setText(""));
        robot.clickOn(field).write(url);
    }

    private static String result(FxRobot robot) {
        return robot.lookup("#server-result").queryAs(Label.class).getText();
    }
}
