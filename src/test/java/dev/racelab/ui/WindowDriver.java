package dev.racelab.ui;

import dev.racelab.ui.model.Settings;
import dev.racelab.ui.model.Session;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;
import dev.racelab.cli.Cli;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Run;
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
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the UI tests do with the window, in the user's terms: choose, type, press, wait.
 *
 * <p>A wait is bounded by what it waits for, never by a guess at how fast the machine is: it goes
 * on while what the window shows moves (the run records events, changes phase, the banner or the
 * status bar changes, a batch advances), and gives up only once nothing has moved for {@link
 * #QUIET} of time and {@link #QUIET_FRAMES} of the window's frames together, so a machine too busy
 * to draw gets more time rather than a failure. A wait that gives up says what it waited for and
 * what the window showed, and leaves a snapshot in target/ui-failures.
 */
final class WindowDriver {

    /** How long nothing may move before a wait gives up, in time... */
    private static final Duration QUIET = Duration.ofSeconds(30);
    /** ...and in frames: 15 s at 60 frames a second; a busy machine draws fewer, and waits longer. */
    private static final long QUIET_FRAMES = 900;
    /** However much moves, no wait outlasts this: a run that moves for ever is a failure too. */
    private static final Duration LONGEST = Duration.ofMinutes(15);
    /** Frames drawn since the first wait, counted on the FX thread. */
    private static final AtomicLong FRAMES = new AtomicLong();
    private static final AtomicBoolean COUNTING = new AtomicBoolean();

    private final FxRobot robot;

    WindowDriver(FxRobot robot) {
        this.robot = robot;
    }

    /** The window on the test servers, with its settings in a fresh file under {@code dir}. */
    static RaceLabWindow showOnTestServers(javafx.stage.Stage stage, java.nio.file.Path dir) {
        long made = System.nanoTime();
        Settings settings = new Settings(dir.resolve("settings-" + made + ".properties"));
        // A folder of its own for the user's lab files: never the folder of whoever runs the tests.
        settings.put(Settings.LAB_FOLDER, dir.resolve("labs-" + made).toString());
        return RaceLabWindow.show(stage, dev.racelab.support.TestServers.backends(), settings,
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
            await("the labs column shows " + title,
                    () -> robot.lookup(title).tryQuery().filter(javafx.scene.Node::isVisible).isPresent());
        } catch (Exception e) {
            throw new AssertionError(e.getMessage(), e);
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
        robot.doubleClickOn(spinner(tooltipText).getEditor());
        robot.push(KeyCode.CONTROL, KeyCode.A);
        robot.write(String.valueOf(value));
        robot.push(KeyCode.ENTER);
    }

    /** The spinner whose tooltip says {@code tooltipText} ("Number of workers"). */
    javafx.scene.control.Spinner<?> spinner(String tooltipText) {
        return robot.lookup(".spinner").queryAllAs(javafx.scene.control.Spinner.class).stream()
                .filter(s -> s.getTooltip() != null && s.getTooltip().getText().equals(tooltipText))
                .findFirst().orElseThrow(() -> new AssertionError("no spinner '" + tooltipText + "'"));
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
     * a node not found that is there a moment later). The FX thread answers unless it is stuck:
     * a busy machine delays it by seconds, never by two minutes.
     */
    static <T> T onFx(java.util.concurrent.Callable<T> read) throws Exception {
        if (javafx.application.Platform.isFxApplicationThread()) {
            return read.call();
        }
        try {
            return WaitForAsyncUtils.asyncFx(read).get(2, TimeUnit.MINUTES);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the FX thread did not answer for two minutes", e);
        }
    }

    /** Does {@code action} on the FX thread and waits for it to be done. */
    static void onFx(Runnable action) throws Exception {
        onFx(() -> {
            action.run();
            return null;
        });
    }

    /** Waits until the banner's headline satisfies {@code condition}; returns it. */
    String awaitVerdict(Predicate<String> condition) throws Exception {
        await("the banner's headline to read as the test expects", () -> condition.test(headline()));
        // Read on the FX thread, the headline was set by a handler that has finished by now (and
        // with it what that handler does after: the strip of last runs, the panels).
        return verdict();
    }

    /** Waits until the window's live run satisfies {@code condition}, asked on the FX thread. */
    void awaitRun(String what, Predicate<Run> condition) throws Exception {
        await(what, () -> {
            Run run = shownRun();
            return run != null && condition.test(run);
        });
    }

    /** How many times the user stepped a worker of {@code run}: its record's {@code STEP} events. */
    static long steps(Run run) {
        return run.record().events().snapshot().stream().filter(e -> e.kind() == EventKind.STEP).count();
    }

    /**
     * Waits until {@code condition}, asked on the FX thread, holds: for as long as what the window
     * shows moves (see the class comment); fails naming {@code what} and what the window showed.
     */
    void await(String what, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        await(what, condition, this::shown);
    }

    /** As {@link #await(String, java.util.concurrent.Callable)}, with {@code progress} saying what moves besides the window. */
    void await(String what, java.util.concurrent.Callable<Boolean> condition,
               java.util.concurrent.Callable<Object> progress) throws Exception {
        countFrames();
        long start = System.nanoTime();
        Object last = List.of(onFx(progress), onFx(this::shown));
        long still = start;
        long stillFrames = FRAMES.get();
        while (!onFx(condition)) {
            Object now = List.of(onFx(progress), onFx(this::shown));
            long at = System.nanoTime();
            if (!now.equals(last)) {
                last = now;
                still = at;
                stillFrames = FRAMES.get();
            } else if (at - still > QUIET.toNanos() && FRAMES.get() - stillFrames > QUIET_FRAMES) {
                giveUp(what, "nothing moved for " + (at - still) / 1_000_000_000 + " s and "
                        + (FRAMES.get() - stillFrames) + " frames");
            }
            if (at - start > LONGEST.toNanos()) {
                giveUp(what, "still moving after " + LONGEST.toMinutes() + " minutes");
            }
            Thread.sleep(10);
        }
    }

    private void giveUp(String what, String why) throws Exception {
        String seen = onFx(this::describe);
        snapshot("never-" + what.replaceAll("[^A-Za-z0-9]+", "-"));
        throw new AssertionError("never happened: " + what + " (" + why + "); the window shows " + seen);
    }

    /** Counts the window's frames from now on (once per JVM): the clock a busy machine slows down with it. */
    private static void countFrames() {
        if (COUNTING.compareAndSet(false, true)) {
            javafx.application.Platform.runLater(() -> new javafx.animation.AnimationTimer() {
                @Override
                public void handle(long now) {
                    FRAMES.incrementAndGet();
                }
            }.start());
        }
    }

    /** The main window's view, if one is shown. */
    private java.util.Optional<dev.racelab.ui.shell.MainView> view() {
        // The batch window's and the first frame's roots wear the style too.
        return robot.lookup(".main-view").queryAll().stream().filter(dev.racelab.ui.shell.MainView.class::isInstance)
                .map(dev.racelab.ui.shell.MainView.class::cast).findFirst();
    }

    /** The live run the window shows, or null (none, or a recording). */
    private Run shownRun() {
        return view().map(dev.racelab.ui.shell.MainView::session).map(Session::run).orElse(null);
    }

    private String headline() {
        return robot.lookup(".verdict-banner").tryQueryAs(VerdictBanner.class).map(VerdictBanner::headlineText)
                .orElse("");
    }

    /**
     * What moves while a run goes: what its workers and the run itself record (not the observers'
     * reads, which go on every 10 ms while a run waits at a breakpoint), its phase, the banner, the
     * servers' status, a batch's progress.
     */
    private Object shown() {
        Run run = shownRun();
        List<Object> moving = new java.util.ArrayList<>();
        moving.add(run == null ? -1L : run.record().events().snapshot().stream()
                .filter(e -> e.actor() == Run.RUN_ACTOR || e.actor() <= run.spec().workers()).count());
        moving.add(run == null ? "" : String.valueOf(run.phase()));
        moving.add(headline());
        robot.lookup(".status-bar").tryQueryAs(org.controlsfx.control.StatusBar.class)
                .ifPresent(bar -> moving.add(String.valueOf(bar.getText())));
        robot.lookup(".progress-bar").queryAllAs(javafx.scene.control.ProgressBar.class)
                .forEach(bar -> moving.add(bar.getProgress()));
        return moving;
    }

    /** The window in a sentence, for a wait that gave up. */
    private String describe() {
        Run run = shownRun();
        StringBuilder text = new StringBuilder("'" + headline() + "'");
        if (run != null) {
            List<dev.racelab.engine.Event> events = run.record().events().snapshot();
            text.append("; the run is ").append(run.phase()).append(", ").append(events.size()).append(" events, the last: ")
                    .append(events.subList(Math.max(0, events.size() - 5), events.size()));
        }
        return text.toString();
    }

    /** Saves what the window shows to target/ui-failures/NAME.png: the first thing to look at when a UI test fails. */
    void snapshot(String name) {
        try {
            javafx.scene.Scene scene = robot.lookup(".main-view").query().getScene();
            javafx.scene.image.WritableImage image = onFx(() -> scene.snapshot(null));
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

    /** The side panels as shown now (refreshed first, on the FX thread). */
    List<Panel> panels(RaceLabWindow window) throws Exception {
        return onFx(() -> {
            window.view().stateColumn().refreshNow();
            return window.view().stateColumn().shownPanels();
        });
    }

    /** The lab's picture as drawn now, into a sketch that keeps its texts and shapes. */
    RecordingSketch picture(RaceLabWindow window) throws Exception {
        return onFx(() -> {
            RecordingSketch sketch = new RecordingSketch(600, 400);
            window.session().view().draw(sketch);
            return sketch;
        });
    }

    /**
     * Saves the shown run's recording to {@code file} and reads it back as the command line does,
     * in-process: {@code racelab replay FILE --json}.
     */
    JsonObject replay(RaceLabWindow window, Path file) throws Exception {
        robot.interact(() -> window.view().recordings().saveTo(file));
        await("the recording is saved as " + file.getFileName(),
                () -> window.view().recordings().savedProperty().get() != null);
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
