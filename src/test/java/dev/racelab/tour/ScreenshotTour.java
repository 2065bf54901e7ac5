package dev.racelab.tour;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.ui.RaceLabWindow;
import dev.racelab.ui.Settings;
import dev.racelab.ui.startup.ServerStartup;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Takes the README's screenshots from the real window: drives each lab through a run (choose,
 * set a delay, run, step) and captures the window at chosen moments. Started by
 * {@code scripts/screenshots}, under Xvfb, with the real GTK toolkit.
 *
 * <p>Arguments: the output folder, then optionally the names of the shots to take.
 */
public final class ScreenshotTour extends Application {

    private static Path output;
    private static List<String> only;

    private RaceLabWindow window;
    private Stage stage;

    /** Started from {@link Main}: a main inside an Application subclass cannot start JavaFX from a class path. */
    static void begin(String[] args) {
        output = Path.of(args.length > 0 ? args[0] : "docs/screenshots");
        only = args.length > 1 ? List.of(args).subList(1, args.length) : List.of();
        launch(ScreenshotTour.class, args);
    }

    /** The tour's entry point. */
    public static final class Main {
        private Main() {
        }

        public static void main(String[] args) {
            begin(args);
        }
    }

    @Override
    public void start(Stage primary) throws Exception {
        stage = primary;
        Path home = DataHome.resolve(System.getenv());
        Path settingsFile = Files.createTempDirectory("racelab-tour").resolve("settings.properties");
        ServerStartup startup = new ServerStartup();
        Backends backends = new Backends(BackendSettings.resolve(null, null, System.getenv()), home, startup);
        window = RaceLabWindow.show(stage, backends, new Settings(settingsFile), startup);
        stage.setWidth(1600);
        stage.setHeight(1000);
        Thread tour = new Thread(() -> {
            int code = 0;
            try {
                backends.postgres();
                tour();
            } catch (Throwable e) {
                e.printStackTrace();
                code = 1;
            } finally {
                backends.close();
                int exit = code;
                Platform.runLater(() -> {
                    Platform.exit();
                    System.exit(exit);
                });
            }
        }, "screenshot-tour");
        tour.setDaemon(true);
        tour.start();
    }

    private void tour() throws Exception {
        Files.createDirectories(output);
        if (wanted("counter-race")) {
            setUp("counter", "read-modify-write", 4, 5, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("counter-race");
        }
        if (wanted("counter-fixed")) {
            setUp("counter", "select-for-update", 4, 5, null, false);
            fx(s -> window.session().start());
            awaitCondition(run -> run.opsCompleted() >= 8);
            shoot("counter-select-for-update-live");
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("counter-fixed");
        }
        if (wanted("counter-step")) {
            setUp("counter", "read-modify-write", 2, 1, GatePlan.NONE, true);
            fx(s -> window.session().start());
            awaitCondition(run -> run.gates().halted().size() == 2);
            for (int worker : new int[] {0, 1}) {
                int w = worker;
                fx(s -> window.session().step(w));
                awaitCondition(run -> run.gates().haltedAt(w) != null
                        && run.gates().haltedAt(w).id().equals("after-read"));
            }
            fx(s -> window.view().gatesTable().selectWorker(0));
            pause(400);
            shoot("counter-step-both-read");
            fx(s -> window.session().step(0));
            awaitCondition(run -> run.gates().haltedAt(0) == null);
            fx(s -> window.session().step(1));
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("counter-step-lost-one");
        }
        if (wanted("fencing-race")) {
            setUp("fencing", "check-then-write", 4, 5, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("fencing-check-then-write-race");
        }
        if (wanted("fencing-safe")) {
            setUp("fencing", "fenced-cas", 4, 5, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("fencing-fenced-cas-safe");
        }
        if (wanted("philosophers-deadlock")) {
            setUp("dining-philosophers", "naive", 5, 3, null, false);
            fx(s -> window.session().start());
            awaitCondition(run -> run.opsCompleted() == 0 && run.recorder().size() > 40
                    && run.startNanos() != 0 && run.recorder().clock().nanos() - run.startNanos() > 700_000_000L);
            shoot("philosophers-deadlocked-live");
            awaitOutcome();
            shoot("philosophers-deadlock");
        }
        if (wanted("philosophers-livelock")) {
            // try-backoff with no backoff: everyone puts a fork back and takes it again in step. Ten meals
            // each, so that someone stays hungry past the window's 10 s timeout (three meals often end first).
            setUp("dining-philosophers", "try-backoff", 5, 10, GatePlan.NONE.with("between-forks", GateRule.fixed(100)),
                    false);
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("philosophers-livelock");
        }
        if (wanted("philosophers-waiter")) {
            // Meals that last long enough to see forks in hands on the projector.
            setUp("dining-philosophers", "waiter", 5, 400, GatePlan.NONE.with("eating", GateRule.fixed(120))
                    .with("thinking", GateRule.range(20, 150)), false);
            fx(s -> window.session().start());
            awaitCondition(run -> run.recorder().clock().nanos() - run.startNanos() > 3_000_000_000L
                    && run.startNanos() != 0);
            shoot("philosophers-waiter-live");
            fx(s -> window.session().stop());
            awaitOutcome();
        }
        if (wanted("readers-writers")) {
            setUpDefaults("readers-writers");
            fx(s -> window.session().start());
            awaitOutcome();
            shoot("readers-writers-reader-preference");
        }
        if (wanted("primitives")) {
            setUpDefaults("redis-primitives");
            fx(s -> window.session().start());
            awaitOutcome();
            shoot("primitives-article-mutex-holder-crashes");
        }
        if (wanted("recording")) {
            // A run saved, the window moved on, and the recording opened again: as a class would see it next week.
            setUp("counter", "read-modify-write", 4, 5, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            Path file = Files.createTempDirectory("racelab-tour").resolve("lost-increments.racelab");
            fx(s -> window.view().recordings().saveTo(file));
            awaitFx(() -> window.view().recordings().savedProperty().get() != null);
            setUp("fencing", "fenced-cas", 10, 5, GatePlan.NONE, false);
            fx(s -> window.view().recordings().open(file));
            awaitFx(() -> window.session().replayingProperty().get());
            pause(700);
            shoot("recording-opened");
        }
    }

    private boolean wanted(String shot) {
        return only.isEmpty() || only.contains(shot);
    }

    /** Chooses the lab with every setting at its default (strategy, workers, operations, preset delays). */
    private void setUpDefaults(String lab) throws Exception {
        fx(s -> {
            window.view().selectLab(lab);
            window.session().stepModeProperty().set(false);
            window.session().reset();
        });
        pause(300);
    }

    /** Chooses the lab and its settings, as the user would; {@code gates} null for the lab's preset delays. */
    private void setUp(String lab, String strategy, int workers, int ops, GatePlan gates, boolean stepMode)
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

    private void awaitOutcome() throws Exception {
        Run run = onFx(() -> window.session().run());
        Outcome outcome = run.awaitOutcome(java.time.Duration.ofMinutes(2));
        System.out.println("[tour] " + run.lab().id() + " " + run.strategy().id() + ": " + outcome.banner());
        pause(700);
    }

    private void awaitCondition(Predicate<Run> condition) throws Exception {
        awaitFx(() -> condition.test(window.session().run()));
    }

    private void awaitFx(java.util.concurrent.Callable<Boolean> condition) throws Exception {
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

    private void shoot(String name) throws Exception {
        WritableImage image = onFx(() -> stage.getScene().snapshot(null));
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

    private static void pause(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    private void fx(Consumer<Void> action) throws Exception {
        onFx(() -> {
            action.accept(null);
            return null;
        });
    }

    private static <T> T onFx(java.util.concurrent.Callable<T> call) throws Exception {
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
