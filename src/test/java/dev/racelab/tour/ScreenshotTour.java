package dev.racelab.tour;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.SwitchValues;
import dev.racelab.ui.RaceLabWindow;
import dev.racelab.ui.model.Settings;
import dev.racelab.ui.startup.ServerStartup;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.stage.Stage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Takes the README's screenshots from the real window: drives each lab through a run (choose,
 * set a delay, run, step) and captures the window at chosen moments. Started by
 * {@code scripts/screenshots}, under Xvfb, with the real GTK toolkit.
 *
 * <p>Arguments: the output folder, then optionally the names of the shots to take.
 */
public final class ScreenshotTour extends TourSteps {

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
        Settings settings = new Settings(settingsFile);
        // The user's lab files: two of the examples, as a teacher's folder would hold them.
        Path labs = Files.createDirectories(settingsFile.resolveSibling("labs"));
        for (String example : List.of("unique-signup.lab", "redis-counter.lab")) {
            Files.copy(Path.of("src/main/resources/dev/racelab/labfiles", example), labs.resolve(example));
        }
        settings.put(Settings.LAB_FOLDER, labs.toString());
        window = RaceLabWindow.show(stage, backends, settings, startup);
        this.backends = backends;
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

    private boolean labListed(String id) {
        javafx.scene.Node list = window.view().lookup("." + dev.racelab.ui.shell.LabList.STYLE);
        return list != null && ((dev.racelab.ui.shell.LabList) list).getItems().stream()
                .anyMatch(lab -> lab.id().equals(id));
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
        if (wanted("job-queue-race")) {
            setUpDefaults("job-queue");
            fx(s -> window.session().start());
            awaitOutcome();
            awaitFx(() -> window.session().outcomeProperty().get() != null);
            shoot("job-queue-select-then-update");
        }
        if (wanted("job-queue-safe")) {
            setUp("job-queue", "request-token", 5, 2, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            awaitFx(() -> window.session().outcomeProperty().get() != null);
            shoot("job-queue-request-token");
        }
        if (wanted("job-queue-crash")) {
            // Everyone looks for jobs once the queue has filled, consumer-2 first; it crashes right
            // after its first claim, and with no lease its jobs stay claimed.
            setUp("job-queue", "skip-locked", 5, 2, GatePlan.NONE.with("before-take", GateRule.range(170, 250))
                    .with("before-take", 2, GateRule.fixed(150)).with("crash-after-claim", 2, GateRule.fixed(1)), false);
            fx(s -> window.session().start());
            awaitOutcome();
            awaitFx(() -> window.session().outcomeProperty().get() != null);
            shoot("job-queue-crash-orphans");
        }
        if (wanted("job-queue-slow")) {
            // consumer-2 claims once the queue has filled and sits 600 ms before its mark; after 200 ms
            // its claim may be taken over.
            setUp("job-queue", "request-token", 5, 2, GatePlan.NONE.with("before-take", GateRule.range(20, 100))
                    .with("before-take", 2, GateRule.fixed(120)).with("before-mark", 2, GateRule.fixed(600)), false);
            fx(s -> window.session().switchesProperty().set(window.session().switchesProperty().get()
                    .with(switchNamed("lease-ms"), 200)));
            fx(s -> window.session().start());
            awaitOutcome();
            awaitFx(() -> window.session().outcomeProperty().get() != null);
            shoot("job-queue-slow-consumer-sends-twice");
        }
        if (wanted("advisory-lock-pooled")) {
            setUpDefaults("advisory-lock");
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("advisory-lock-session-pooled");
        }
        if (wanted("advisory-lock-xact")) {
            setUpDefaults("advisory-lock");
            setUp("advisory-lock", "xact-lock", 8, 3, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("advisory-lock-xact-lock");
        }
        if (wanted("advisory-lock-reentrant")) {
            // One worker on one connection takes the lock three times, then unlocks it four times.
            setUp("advisory-lock", "session-pinned", 1, 1, GatePlan.NONE.with("before-unlock", GateRule.fixed(60)), false);
            fx(s -> window.session().switchesProperty().set(SwitchValues.DEFAULTS
                    .parse(window.session().lab().profile().switchNamed("reentrancy").orElseThrow(), "one-too-many")));
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("advisory-lock-reentrant");
            fx(s -> window.session().switchesProperty().set(SwitchValues.DEFAULTS));
        }
        if (wanted("advisory-lock-collision")) {
            // Two invoices whose names hash to one 32-bit key: their workers wait for each other in
            // PostgreSQL, though a connection each leaves room for both invoices at once.
            setUp("advisory-lock", "xact-lock", 4, 3, null, false);
            fx(s -> window.session().switchesProperty().set(SwitchValues.DEFAULTS
                    .parse(window.session().lab().profile().switchNamed("resources").orElseThrow(), "colliding")
                    .parse(window.session().lab().profile().switchNamed("acquire").orElseThrow(), "blocking")
                    .parse(window.session().lab().profile().switchNamed("pool-size").orElseThrow(), "4")));
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("advisory-lock-collision");
            fx(s -> window.session().switchesProperty().set(SwitchValues.DEFAULTS));
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
        if (wanted("replica-read")) {
            setUpDefaults("replica-read");
            fx(s -> window.session().start());
            awaitOutcome();
            shoot("replica-read-stale");
            keep("replica-read-stale");
        }
        if (wanted("redis-failover")) {
            setUpDefaults("redis-failover");
            fx(s -> window.session().start());
            awaitOutcome();
            shoot("redis-failover-two-holders");
            keep("redis-failover-two-holders");
        }
        if (wanted("primitives")) {
            setUpDefaults("redis-primitives");
            fx(s -> window.session().start());
            awaitOutcome();
            shoot("primitives-article-mutex-holder-crashes");
        }
        if (wanted("lease-fencing")) {
            // The moment itself, held by breakpoints, with a 1.5 s lease and the lease keeper on: client-1
            // halted right after taking the lock, its process paused, so nothing renews its lease and Redis
            // lets it go 1.5 s later; client-2 takes the lock then and halts before its write, running, so its
            // lease is renewed however long the tour, slow on a busy machine, takes to shoot.
            setUp("lease-fencing", "lease-only", 2, 2, GatePlan.NONE.with("pause-after-acquire", 0, GateRule.BREAKPOINT)
                    .with("before-acquire", 1, GateRule.fixed(1600)).with("slow-write", 1, GateRule.BREAKPOINT), false);
            fx(s -> {
                var profile = window.session().lab().profile();
                window.session().switchesProperty().set(SwitchValues.DEFAULTS
                        .parse(profile.switchNamed("lease-ms").orElseThrow(), "1500")
                        .parse(profile.switchNamed("keeper").orElseThrow(), "true"));
                window.session().start();
            });
            awaitCondition(run -> run.gates().halted().size() == 2);
            // Both halted, the clock runs on: show the run from the workers' start to a little after
            // client-2 took the lock.
            fx(s -> {
                List<dev.racelab.engine.Event> events = window.session().run().recorder().snapshot();
                long started = events.stream().filter(e -> e.kind() == dev.racelab.engine.EventKind.RUN_STARTED)
                        .findFirst().orElseThrow().nanos();
                long first = events.stream().filter(e -> e.kind() == dev.racelab.engine.EventKind.STATE)
                        .findFirst().orElseThrow().nanos() - started - 30_000_000L;
                long took = events.stream().filter(e -> e.kind() == dev.racelab.engine.EventKind.TWO_HOLDERS)
                        .findFirst().orElseThrow().nanos() - started + 400_000_000L;
                window.view().timeline().followLiveProperty().set(false);
                window.view().timeline().setView((took - Math.max(0, first)) / 900.0, Math.max(0, first));
            });
            pause(400);
            shoot("lease-fencing-two-holders");
            fx(s -> window.session().stop());
            awaitOutcome();
            fx(s -> {
                window.session().switchesProperty().set(SwitchValues.DEFAULTS);
                window.view().timeline().followLiveProperty().set(true);
            });
            setUp("lease-fencing", "lease-only", 2, 2, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("lease-fencing-lease-only-race");
            setUp("lease-fencing", "fenced", 2, 2, null, false);
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("lease-fencing-fenced-safe");
        }
        if (wanted("lab-file")) {
            // A teacher's lab file from their folder, listed with the built-in labs and run like one.
            awaitFx(() -> window.view().labFiles() != null && window.session().lab() != null
                    && labListed("unique-signup.lab"));
            fx(s -> window.view().selectLab("unique-signup.lab"));
            awaitFx(() -> window.session().lab().id().equals("unique-signup.lab"));
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("lab-file-unique-signup");
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
        for (int[] size : new int[][] {{1920, 1080}, {1280, 720}}) {
            String name = "presenter-" + size[1];
            if (wanted(name)) {
                fx(s -> {
                    stage.setWidth(size[0]);
                    stage.setHeight(size[1]);
                    window.view().presentation().presenterMode(true);
                });
                setUpDefaults("counter");
                fx(s -> window.session().start());
                awaitOutcome();
                fx(s -> window.view().timeline().fit());
                pause(400);
                shoot(name);
                fx(s -> {
                    window.view().presentation().presenterMode(false);
                    stage.setWidth(1600);
                    stage.setHeight(1000);
                });
            }
        }
        if (wanted("dark")) {
            fx(s -> window.view().presentation().darkTheme(true));
            setUpDefaults("fencing");
            fx(s -> window.session().start());
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(400);
            shoot("dark");
            fx(s -> window.view().presentation().darkTheme(false));
        }
        if (wanted("isolation-waiting")) {
            // By hand, in step mode: each clerk reads 100, Alice deposits, then Bob's deposit waits for her row lock.
            fx(s -> window.view().selectLab("isolation"));
            pause(300);
            fx(s -> window.view().isolationBench().startByHand());
            for (int worker : new int[] {0, 1, 0, 1, 0, 1}) {
                awaitCondition(run -> run.gates().haltedAt(worker) != null);
                fx(s -> window.session().step(worker));
            }
            awaitFx(() -> window.view().stateColumn().shownPanels().stream()
                    .anyMatch(p -> p.title().equals("Waiting now") && !((dev.racelab.engine.view.Panel.Items) p)
                            .items().isEmpty()));
            fx(s -> window.view().timeline().fit());
            pause(600);
            shoot("isolation-waiting");
            fx(s -> window.session().stop());
            awaitOutcome();
        }
        if (wanted("isolation-lost-update")) {
            fx(s -> window.view().selectLab("isolation"));
            pause(300);
            fx(s -> window.view().isolationBench().runEveryPermutation());
            awaitFx(() -> window.view().isolationBench().grid().shown(3) != dev.racelab.ui.isolation.PermutationGrid.Shown.NOT_RUN);
            fx(s -> window.view().isolationBench().play(1));
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(600);
            shoot("isolation-lost-update");
        }
        if (wanted("isolation-grid")) {
            Path spec = Files.createTempDirectory("racelab-tour").resolve("on-call-serializable.spec");
            try (var in = ScreenshotTour.class.getResourceAsStream("on-call-serializable.spec")) {
                Files.copy(in, spec);
            }
            fx(s -> window.view().openDropped(spec));
            pause(300);
            fx(s -> window.view().isolationBench().runEveryPermutation());
            awaitFx(() -> window.view().isolationBench().grid().shown(20) != dev.racelab.ui.isolation.PermutationGrid.Shown.NOT_RUN);
            fx(s -> window.view().isolationBench().play(10));
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(600);
            shoot("isolation-grid");
        }
        if (wanted("explore-grid") || wanted("explore-played")) {
            setUp("counter", "read-modify-write", 2, 2, GatePlan.NONE, false);
            explore("explore", dev.racelab.engine.explore.Method.ALL, 2, 2);
        }
        if (wanted("explore-philosophers-grid") || wanted("explore-philosophers-played")) {
            setUp("dining-philosophers", "naive", 3, 1, GatePlan.NONE, false);
            explore("explore-philosophers", dev.racelab.engine.explore.Method.BOUNDED, 3, 1);
        }
        new ClassShots(this).takeWanted();
        if (wanted("batch-histogram")) {
            setUpDefaults("counter");
            batch("batch-histogram", 20, List.of("read-modify-write", "atomic-update", "select-for-update"), null);
        }
        if (wanted("batch-sweep")) {
            setUp("counter", "read-modify-write", 2, 1,
                    GatePlan.NONE.with("before-read", GateRule.range(0, 50)), false);
            batch("batch-sweep", 20, List.of("read-modify-write", "atomic-update"),
                    new dev.racelab.engine.Sweep("after-read", -1, 0, 30, 3));
        }
    }

    /**
     * Explores the lab set up ({@code workers} × {@code ops}, by {@code how}, at most two
     * preemptions where bounded), shoots the grid with the shrunk failure beside its passing
     * neighbour ({@code name}-grid), then plays the shrunk failure on the timeline and shoots the
     * window ({@code name}-played).
     */
    private void explore(String name, dev.racelab.engine.explore.Method how, int workers, int ops) throws Exception {
        dev.racelab.ui.explore.ExploreWindow explore = onFx(() -> window.view().openExplore());
        fx(s -> {
            explore.stage().setWidth(1280);
            explore.stage().setHeight(860);
            explore.choose(how, 2, workers, ops);
            explore.start();
        });
        awaitResult(() -> explore.resultProperty().get(), "the exploration", 5);
        pause(600);
        if (wanted(name + "-grid")) {
            shoot(name + "-grid", explore.stage());
        }
        if (wanted(name + "-played")) {
            fx(s -> ((javafx.scene.control.Button) explore.stage().getScene().lookup("#explore-play-shrunk")).fire());
            pause(300);
            awaitOutcome();
            fx(s -> window.view().timeline().fit());
            pause(600);
            shoot(name + "-played");
        }
        fx(s -> explore.stage().close());
    }

    /** Opens the batch window on the settings shown, runs it with these choices, and shoots it when it ends. */
    private void batch(String name, int runs, List<String> strategies, dev.racelab.engine.Sweep sweep)
            throws Exception {
        dev.racelab.ui.batch.BatchWindow batch = onFx(() -> window.view().openBatch());
        fx(s -> {
            batch.stage().setWidth(1280);
            batch.stage().setHeight(860);
            batch.choose(runs, strategies, sweep);
            batch.start();
        });
        awaitResult(() -> batch.resultProperty().get(), "the batch", 10);
        pause(600);
        shoot(name, batch.stage());
        fx(s -> batch.stage().close());
    }
}
