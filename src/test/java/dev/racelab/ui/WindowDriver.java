package dev.racelab.ui;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;
import dev.racelab.cli.Cli;
import dev.racelab.engine.view.Panel;
import dev.racelab.support.RecordingSketch;
import dev.racelab.ui.gates.GatesTable;
import dev.racelab.ui.shell.VerdictBanner;
import javafx.scene.Node;
import javafx.scene.control.TableRow;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** What the UI tests do with the window, in the user's terms: choose, type, press, wait. */
final class WindowDriver {

    private final FxRobot robot;

    WindowDriver(FxRobot robot) {
        this.robot = robot;
    }

    /** The window on the test servers, with its settings in a fresh file under {@code dir}. */
    static RaceLabWindow showOnTestServers(javafx.stage.Stage stage, java.nio.file.Path dir) {
        return RaceLabWindow.show(stage, dev.racelab.support.TestServers.backends(),
                new Settings(dir.resolve("settings-" + System.nanoTime() + ".properties")),
                new dev.racelab.ui.startup.ServerStartup());
    }

    /** Clicks the lab titled {@code title} in the labs column, scrolling the list to it first. */
    void chooseLab(String title) {
        dev.racelab.ui.shell.LabList list = robot.lookup("." + dev.racelab.ui.shell.LabList.STYLE)
                .queryAs(dev.racelab.ui.shell.LabList.class);
        robot.interact(() -> list.getItems().stream().filter(lab -> lab.title().equals(title)).findFirst()
                .ifPresent(list::scrollTo));
        // The list makes the cell scrolled to at its next layout, a pulse later: wait for it.
        try {
            await(10, () -> robot.lookup(title).tryQuery().filter(javafx.scene.Node::isVisible).isPresent());
        } catch (Exception e) {
            throw new AssertionError("the labs column never showed " + title, e);
        }
        robot.clickOn(title);
    }

    void chooseStrategy(String id) {
        robot.clickOn("#strategy-" + id);
    }

    /** Types a delay into the gates table's cell for {@code row} ("all workers", "client-2") and gate. */
    void setDelay(String row, String gate, String delay) {
        TextField field = delayField(row, gate);
        robot.clickOn(field);
        robot.push(KeyCode.CONTROL, KeyCode.A);
        robot.write(delay);
        robot.push(KeyCode.ENTER);
    }

    TextField delayField(String row, String gate) {
        GatesTable table = robot.lookup(".gates-table").queryAs(GatesTable.class);
        int column = table.getColumns().stream().skip(1).map(c -> ((javafx.scene.control.Label) c.getGraphic()).getText())
                .toList().indexOf(gate);
        if (column < 0) {
            fail("no gate " + gate);
        }
        for (Node node : table.lookupAll(".table-row-cell")) {
            TableRow<?> tableRow = (TableRow<?>) node;
            if (tableRow.getItem() instanceof GatesTable.Row r && r.name().equals(row)) {
                List<TextField> fields = tableRow.lookupAll(".delay-field").stream().map(TextField.class::cast)
                        .sorted(Comparator.comparingDouble(f -> f.localToScene(0, 0).getX())).toList();
                return fields.get(column);
            }
        }
        fail("no row " + row + " in the gates table");
        return null;
    }

    void setSpinner(String tooltipText, int value) {
        javafx.scene.control.Spinner<?> spinner = robot.lookup(".spinner").queryAllAs(javafx.scene.control.Spinner.class)
                .stream().filter(s -> s.getTooltip() != null && s.getTooltip().getText().equals(tooltipText))
                .findFirst().orElseThrow();
        robot.doubleClickOn(spinner.getEditor());
        robot.push(KeyCode.CONTROL, KeyCode.A);
        robot.write(String.valueOf(value));
        robot.push(KeyCode.ENTER);
    }

    /** Types {@code text} into the control of the lab's switch {@code name} and presses Enter. */
    void setSwitch(String name, String text) {
        javafx.scene.control.Spinner<?> spinner = robot.lookup("#switch-" + name)
                .queryAs(javafx.scene.control.Spinner.class);
        robot.doubleClickOn(spinner.getEditor());
        robot.push(KeyCode.CONTROL, KeyCode.A);
        robot.write(text);
        robot.push(KeyCode.ENTER);
    }

    void press(String button) {
        robot.clickOn("#" + button + "-button");
    }

    String verdict() throws Exception {
        return onFx(() -> robot.lookup(".verdict-banner").queryAs(VerdictBanner.class).headlineText());
    }

    /**
     * {@code read} on the FX thread, where the window changes: read from the test's thread, a
     * lookup can walk a list of children the FX thread is rebuilding (an index out of bounds, or
     * a node not found that is there a moment later).
     */
    static <T> T onFx(java.util.concurrent.Callable<T> read) throws Exception {
        if (javafx.application.Platform.isFxApplicationThread()) {
            return read.call();
        }
        return WaitForAsyncUtils.asyncFx(read).get(30, TimeUnit.SECONDS);
    }

    /** Waits until the banner's headline satisfies {@code condition}; returns it. */
    String awaitVerdict(Predicate<String> condition) throws Exception {
        WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> condition.test(verdict()));
        // Read on the FX thread, the headline was set by a handler that has finished by now (and
        // with it what that handler does after: the strip of last runs, the panels).
        return verdict();
    }

    /** Saves what the window shows to target/ui-failures/NAME.png: the first thing to look at when a UI test fails. */
    void snapshot(String name) {
        try {
            javafx.scene.Scene scene = robot.lookup(".main-view").query().getScene();
            javafx.scene.image.WritableImage image = org.testfx.util.WaitForAsyncUtils.asyncFx(() -> scene.snapshot(null))
                    .get(10, TimeUnit.SECONDS);
            int w = (int) image.getWidth();
            int h = (int) image.getHeight();
            java.awt.image.BufferedImage png = new java.awt.image.BufferedImage(w, h,
                    java.awt.image.BufferedImage.TYPE_INT_ARGB);
            int[] row = new int[w];
            for (int y = 0; y < h; y++) {
                image.getPixelReader().getPixels(0, y, w, 1, javafx.scene.image.PixelFormat.getIntArgbInstance(),
                        row, 0, w);
                png.setRGB(0, y, w, 1, row, 0, w);
            }
            java.nio.file.Path dir = java.nio.file.Path.of("target", "ui-failures");
            java.nio.file.Files.createDirectories(dir);
            javax.imageio.ImageIO.write(png, "png", dir.resolve(name + ".png").toFile());
        } catch (Exception e) {
            System.err.println("could not save a snapshot: " + e);
        }
    }

    /** Waits until {@code condition}, asked on the FX thread ({@link #onFx}), holds; fails after {@code seconds}. */
    static void await(long seconds, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, () -> onFx(condition));
    }

    /** The side panels as shown now (refreshed first, on the FX thread). */
    List<Panel> panels(RaceLabWindow window) throws Exception {
        return WaitForAsyncUtils.asyncFx(() -> {
            window.view().stateColumn().refreshNow();
            return window.view().stateColumn().shownPanels();
        }).get(10, TimeUnit.SECONDS);
    }

    /** The lab's picture as drawn now, into a sketch that keeps its texts and shapes. */
    RecordingSketch picture(RaceLabWindow window) throws Exception {
        return WaitForAsyncUtils.asyncFx(() -> {
            RecordingSketch sketch = new RecordingSketch(600, 400);
            window.session().view().draw(sketch);
            return sketch;
        }).get(10, TimeUnit.SECONDS);
    }

    /**
     * Saves the shown run's recording to {@code file} and reads it back as the command line does,
     * in-process: {@code racelab replay FILE --json}.
     */
    JsonObject replay(RaceLabWindow window, Path file) throws Exception {
        robot.interact(() -> window.view().recordings().saveTo(file));
        await(30, () -> window.view().recordings().savedProperty().get() != null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Map<String, String> env = Map.of();
        int code = new Cli(env, DataHome.resolve(env),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                .run(List.of("replay", file.toString(), "--json"));
        assertEquals(0, code, "replay " + file);
        return JsonParser.parseString(out.toString(StandardCharsets.UTF_8)).getAsJsonObject();
    }
}
