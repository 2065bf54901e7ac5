package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Service;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;
import dev.racelab.ui.shell.MainView;
import dev.racelab.ui.startup.FirstFrame;
import dev.racelab.ui.startup.ServerStartup;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window as the application opens it: its first frame, the labs with their stories and the
 * servers' progress, is on screen at once; the window proper is built in its place once that is
 * drawn, and the servers start beside it.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class FirstFrameWindowTest {

    @TempDir
    static Path dir;

    private final ServerStartup startup = new ServerStartup();
    private final AtomicReference<RaceLabWindow> opened = new AtomicReference<>();
    private Stage stage;
    private Parent first;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        RaceLabWindow.open(stage, TestServers.backends(), new Settings(dir.resolve("first-frame.properties")), startup,
                opened::set);
        first = stage.getScene().getRoot();
    }

    @Test
    void theFirstFrameShowsTheLabsAndTheServersThenTheWindowComesInItsPlace(FxRobot robot) throws Exception {
        assertInstanceOf(FirstFrame.class, first, "what the stage shows as it opens");
        List<String> shown = texts(first);
        for (Lab lab : new Labs(TestServers.backends()).all()) {
            assertTrue(shown.contains(lab.title()) && shown.contains(lab.story()), lab.id() + " in " + shown);
        }
        assertTrue(shown.stream().anyMatch(text -> text.contains("PostgreSQL") && text.contains("Redis")), "the servers' status: " + shown);

        WindowDriver ui = new WindowDriver(robot);
        ui.await("the window proper is built", () -> opened.get() != null);
        assertInstanceOf(MainView.class, stage.getScene().getRoot());
        assertSame(opened.get().view(), stage.getScene().getRoot(), "the window proper took the first frame's place");
        ui.await("both servers are up", () -> startup.readyProperty(Service.POSTGRES).get()
                && startup.readyProperty(Service.REDIS).get());
    }

    private static List<String> texts(Node node) {
        List<String> texts = new ArrayList<>();
        if (node instanceof Label label) {
            texts.add(label.getText());
        }
        if (node instanceof Parent parent) {
            parent.getChildrenUnmodifiable().forEach(child -> texts.addAll(texts(child)));
        }
        return texts;
    }
}
