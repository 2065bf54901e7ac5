package dev.racelab.ui;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.engine.RunRecord;
import dev.racelab.export.CsvExport;
import dev.racelab.export.TimelinePicture;
import dev.racelab.ui.exports.ExportFiles;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * File ▸ Export on the run the window shows: the timeline as shown and whole, the lab's picture,
 * the events and the Chrome trace are each written, whole, and say what the run said.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class ExportWindowTest {

    @TempDir
    static Path dir;

    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        window = WindowDriver.showOnTestServers(stage, dir);
    }

    @Test
    void everyExportOfTheShownRunIsWrittenAndSaysWhatTheRunSaid(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        ui.chooseLab("Lost increments");
        ui.press("run");
        ui.awaitVerdict(v -> v.startsWith("RACE") || v.startsWith("SAFE") || v.startsWith("ERROR"));
        RunRecord record = window.session().record();
        ExportFiles exports = window.view().exports();

        for (ExportFiles.Kind kind : ExportFiles.Kind.values()) {
            Path file = dir.resolve(kind.name().toLowerCase() + (kind.name().endsWith("PNG") ? ".png"
                    : kind.name().endsWith("SVG") ? ".svg" : kind == ExportFiles.Kind.CSV ? ".csv" : ".json"));
            assertTrue(WindowDriver.onFx(() -> exports.canExport(kind)), kind.name());
            WindowDriver.onFx(() -> exports.exportTo(kind, file));
            ui.await("the export is written as " + file.getFileName(), () -> file.equals(exports.exportedProperty().get()));
            assertTrue(Files.size(file) > 0, kind.name());
        }

        String banner = record.outcome().banner();
        assertTrue(Files.readString(dir.resolve("timeline_svg.svg")).contains(banner), "the timeline's heading");
        assertTrue(Files.readString(dir.resolve("timeline_shown_svg.svg")).contains(">client-1</text>"));
        assertEquals((int) Math.ceil(TimelinePicture.WIDTH * exports.scale()),
                javax.imageio.ImageIO.read(dir.resolve("timeline_png.png").toFile()).getWidth());
        long lost = record.outcome().violations().get("lost increments");
        assertTrue(Files.readString(dir.resolve("picture_svg.svg")).contains(">" + lost + "</text>"), "lost " + lost);
        List<String> csv = Files.readAllLines(dir.resolve("csv.csv"));
        assertEquals(CsvExport.HEADER, csv.get(0));
        assertEquals(record.events().size(), csv.size() - 1, "a line per event");
        JsonObject trace = JsonParser.parseString(Files.readString(dir.resolve("trace.json"))).getAsJsonObject();
        assertTrue(trace.getAsJsonArray("traceEvents").size() > record.events().size() / 2, "the trace holds the run");
    }
}
