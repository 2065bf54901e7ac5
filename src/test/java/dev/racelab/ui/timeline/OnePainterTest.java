package dev.racelab.ui.timeline;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.Theme;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.export.TimelinePicture;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingReader;
import dev.racelab.ui.look.Palette;
import javafx.scene.Scene;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.awt.image.BufferedImage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window's timeline and the PNG exported of it as shown come from one painter: drawn from one
 * recording at the same size, zoom and range, the picture's timeline is the window's canvas, pixel
 * for pixel but for the rasterising of text (JavaFX's and Java2D's each smooth glyphs their own way).
 * The recording is two real counter runs with server lanes, marks and arrows.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class OnePainterTest {

    private static final String GOLDEN = "/dev/racelab/export/golden/two-counter-runs.racelab";
    /** How far a pixel's channel may differ and still be the same colour (antialiasing of edges). */
    private static final int CLOSE = 24;

    @TempDir
    Path dir;
    private TimelineView view;

    @Start
    void start(Stage stage) {
        Palette.use(Theme.LIGHT);
        view = new TimelineView();
        stage.setScene(new Scene(view, 1100, 420));
        stage.show();
    }

    @Test
    void thePngOfTheTimelineAsShownIsTheWindowsCanvas() throws Exception {
        Path file = dir.resolve("two.racelab");
        try (InputStream in = OnePainterTest.class.getResourceAsStream(GOLDEN)) {
            Files.copy(in, file);
        }
        Labs labs = new Labs(new Backends(BackendSettings.embedded(), dir, StartupListener.SILENT));
        for (RunRecord record : new RecordingReader(labs).read(file).runs()) {
            TimelineModel model = new TimelineModel(record.events());
            new Feed(record.events(), model::accept).catchUp();
            WritableImage[] shot = new WritableImage[1];
            TimelinePicture[] picture = new TimelinePicture[1];
            WaitForAsyncUtils.waitForAsyncFx(10_000, () -> {
                view.setModel(model);
                view.fit();
                view.render(model.latest(), false);
                shot[0] = view.snapshot(null, null);
                picture[0] = TimelinePicture.asShown(record, view.shownLayout(), Theme.LIGHT);
            });
            BufferedImage png = picture[0].image(1);
            int width = (int) picture[0].width();
            int height = (int) Math.min(shot[0].getHeight(), picture[0].timelineHeight());
            assertEquals(width, (int) view.shownLayout().width, "the picture is the canvas's width");
            PixelReader window = shot[0].getPixelReader();
            int top = (int) picture[0].timelineTop();
            long differ = 0;
            for (int y = 0; y < height; y++) {
                for (int x = 0; x < width; x++) {
                    if (!close(window.getArgb(x, y), png.getRGB(x, top + y))) {
                        differ++;
                    }
                }
            }
            double share = differ / (double) (width * height);
            System.out.printf("one painter, run %s: %.2f %% of the pixels differ%n", record.header().spec().strategy(),
                    100 * share);
            assertTrue(share < 0.025, String.format("run %s: %.2f %% of the %d × %d pixels differ",
                    record.header().spec().strategy(), 100 * share, width, height));
        }
    }

    private static boolean close(int a, int b) {
        return Math.abs(((a >> 16) & 0xff) - ((b >> 16) & 0xff)) <= CLOSE
                && Math.abs(((a >> 8) & 0xff) - ((b >> 8) & 0xff)) <= CLOSE
                && Math.abs((a & 0xff) - (b & 0xff)) <= CLOSE;
    }
}
