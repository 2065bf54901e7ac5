package dev.racelab.ui;

import dev.racelab.backend.BackendSettings;
import dev.racelab.support.Child;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window starts without a word on the terminal that a user should not need to read: JavaFX's
 * "Unsupported JavaFX configuration" warning (it is loaded from the class path, as RaceLab ships
 * it, one jar) is not printed. RaceLab's own launcher in a JVM of its own, as {@code java -jar}
 * starts it, headless under Monocle, on the test servers.
 */
@Tag("ui")
class WindowStartsQuietlyTest {

    @TempDir
    Path home;

    private Child window;

    @AfterEach
    void stop() {
        if (window != null) {
            window.stop();
        }
    }

    @Test
    void theWindowStartsWithoutJavaFxsClassPathWarning() throws Exception {
        window = Child.start(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dglass.platform=Monocle", "-Dmonocle.platform=Headless", "-Dprism.order=sw",
                "-cp", System.getProperty("java.class.path"), "dev.racelab.Launcher"),
                Map.of("RACELAB_HOME", home.toString(), BackendSettings.PG_ENV,
                        TestServers.postgres().address().secretUrl(), BackendSettings.REDIS_ENV,
                        TestServers.redis().address().secretUrl()));
        // JavaFX checks how it was loaded as it starts, before its renderer loads its library into
        // the data home (Launcher's javafx.cachedir): once the library is there, the check is done.
        Path renderer = home.resolve("javafx").resolve("libprism_sw.so");
        Poll.until("JavaFX started in the child (its renderer's library in " + renderer.getParent() + ")",
                () -> Files.exists(renderer) || !window.process().isAlive());
        assertTrue(window.process().isAlive(), "the window's JVM ended: " + window.err());
        assertFalse(window.err().contains("Unsupported JavaFX configuration"), window.err());
    }
}
