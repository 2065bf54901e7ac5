package dev.racelab.tour;

import dev.racelab.engine.GatePlan;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.ui.RaceLabWindow;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What the screenshot tour ({@link ScreenshotTour}) does at each stop: choose a lab and its
 * settings as the user would, wait for a run or a window to reach the moment wanted, and capture
 * a window to a PNG. Everything that touches the window runs on the FX thread; the tour itself on
 * a thread of its own.
 */
abstract class TourSteps extends Application {

    /** Where the PNGs go, and which shots to take (all when empty). */
    static Path output;
    static List<String> only;

    RaceLabWindow window;
    /** The window's servers: a class hosted elsewhere (the tour's own host) is opened on them too. */
    dev.racelab.backend.Backends backends;
    Stage stage;

    /** Waits until {@code result} (read on the FX thread) is there, at most {@code minutes}. */
    static void awaitResult(java.util.concurrent.Callable<?> result, String what, int minutes)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
        while (onFx(result) == null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " did not end within " + minutes + " minutes");
            }
            Thread.sleep(200);
        }
    }

    /** The chosen lab's integer switch called {@code name}. */
    @SuppressWarnings("unchecked")
    dev.racelab.engine.Switch<Integer> switchNamed(String name) {
        return (dev.racelab.engine.Switch<Integer>) window.session().lab().profile().switchNamed(name).orElseThrow();
    }

    boolean wanted(String shot) {
        return only.isEmpty() || only.contains(shot);
    }

    /** Chooses the lab with every setting at its default (strategy, workers, operations, preset delays). */
    void setUpDefaults(String lab) throws Exception {
        fx(s -> {
            window.view().selectLab(lab);
            window.session().stepModeProperty().set(false);
            window.session().reset();
        });
        pause(300);
    }

    /** Chooses the lab and its settings, as the user would; {@code gates} null for the lab's preset delays. */
    void setUp(String lab, String strategy, int workers, int ops, GatePlan gates, boolean stepMode)
            throws Exception {
        fx(s -> {
            window.view().selectLab(lab);
            var session = window.session();
            session.stepModeProperty().set(stepMode);
            session.strategyProperty().set(session.lab().strategy(strategy).orElseThrow());
            session.workersProperty().set(workers);
            session.opsProperty().set(ops);
            session.gatesProperty().set(gates == null ? session.lab().presetGates() : gates);
            session.reset();
        });
        pause(300);
    }

    void awaitOutcome() throws Exception {
        Run run = onFx(() -> window.session().run());
        Outcome outcome = run.awaitOutcome(java.time.Duration.ofMinutes(2));
        System.out.println("[tour] " + run.lab().id() + " " + run.strategy().id() + ": " + outcome.banner());
        pause(700);
    }

    void awaitCondition(Predicate<Run> condition) throws Exception {
        awaitFx(() -> condition.test(window.session().run()));
    }

    void awaitFx(java.util.concurrent.Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (onFx(condition)) {
                pause(300);
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("the tour waited a minute for a moment that never came");
    }

    /** Saves the run on screen beside the shots, so the command line can sum up the very run the picture shows. */
    void keep(String name) throws Exception {
        Path file = Path.of("target", "tour-" + name + ".racelab").toAbsolutePath();
        // Saving never replaces a file without asking: the last tour's goes first.
        java.nio.file.Files.deleteIfExists(file);
        fx(s -> window.view().recordings().saveTo(file));
        awaitFx(() -> file.equals(window.view().recordings().savedProperty().get()));
        System.out.println("[tour] recorded " + file);
    }

    void shoot(String name) throws Exception {
        shoot(name, stage);
    }

    void shoot(String name, Stage of) throws Exception {
        WritableImage image = onFx(() -> of.getScene().snapshot(null));
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        BufferedImage png = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        PixelReader reader = image.getPixelReader();
        int[] row = new int[w];
        for (int y = 0; y < h; y++) {
            reader.getPixels(0, y, w, 1, javafx.scene.image.PixelFormat.getIntArgbInstance(), row, 0, w);
            png.setRGB(0, y, w, 1, row, 0, w);
        }
        Path file = output.resolve(name + ".png");
        ImageIO.write(png, "png", file.toFile());
        System.out.println("[tour] wrote " + file);
    }

    static void pause(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    void fx(Consumer<Void> action) throws Exception {
        onFx(() -> {
            action.accept(null);
            return null;
        });
    }

    static <T> T onFx(java.util.concurrent.Callable<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Platform.runLater(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result.get(30, TimeUnit.SECONDS);
    }
}
