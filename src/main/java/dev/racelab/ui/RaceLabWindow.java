package dev.racelab.ui;

import dev.racelab.ui.look.Themes;
import dev.racelab.ui.look.Palette;
import dev.racelab.ui.model.Settings;
import dev.racelab.ui.model.Session;
import dev.racelab.backend.Backends;
import dev.racelab.engine.Clock;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Run;
import dev.racelab.engine.view.Theme;
import dev.racelab.labs.Labs;
import dev.racelab.ui.recordings.RecordingFiles;
import dev.racelab.ui.shell.MainView;
import dev.racelab.ui.startup.FirstFrame;
import dev.racelab.ui.startup.ServerStartup;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.image.Image;
import javafx.scene.layout.Region;
import javafx.stage.Stage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Builds the window on a stage from its collaborators; the application and the UI tests both
 * come through here, so the tests drive the same window users see.
 */
public final class RaceLabWindow {

    private static final List<Integer> ICON_SIZES = List.of(16, 32, 48, 64, 128, 256);

    private final MainView view;
    private final Session session;

    private RaceLabWindow(MainView view, Session session) {
        this.view = view;
        this.session = session;
    }

    /**
     * How the application opens the window: the servers start in the background at once, its
     * {@link FirstFrame} shows, and once that is on screen the window proper takes its place;
     * {@code opened} gets the window on the FX thread. A server that cannot be used is offered the
     * connection dialog, once the window is there to offer it.
     *
     * <p>The servers start before the first frame, not after it: with the binaries the build
     * prepared, a first start unpacks gzip and copies a cluster (no initdb) and a later one only
     * starts the servers, mostly in processes of their own, so the window and the servers come up
     * side by side. (Until the build prepared them, an xz unpack and initdb held a 2-core
     * machine's first frame back by a second or more, and the servers waited for it.)
     */
    public static void open(Stage stage, Backends backends, Settings settings, ServerStartup startup,
                            Consumer<RaceLabWindow> opened) {
        Labs labs = new Labs(backends);
        Scene scene = scene(stage, new FirstFrame(labs.all(), chosen(labs, settings), startup), settings);
        RaceLabWindow[] window = new RaceLabWindow[1];
        // A start that fails before the window is built is offered once it is (all on the FX thread).
        List<Runnable> beforeTheWindow = new ArrayList<>();
        startup.attach(backends, (service, message) -> {
            Runnable ask = () -> window[0].view.askForServer(service, message);
            if (window[0] == null) {
                beforeTheWindow.add(ask);
            } else {
                ask.run();
            }
        });
        startup.startAll();
        afterFirstFrame(scene, () -> {
            window[0] = build(stage, scene, labs, backends, settings, startup);
            opened.accept(window[0]);
            beforeTheWindow.forEach(Platform::runLater);
        });
        stage.show();
    }

    /**
     * Shows the window proper on {@code stage} at once (the UI tests and the screenshot tour);
     * servers come up in the background once it is on screen, and a server that cannot be used is
     * offered the connection dialog.
     */
    public static RaceLabWindow show(Stage stage, Backends backends, Settings settings, ServerStartup startup) {
        Labs labs = new Labs(backends);
        Scene scene = scene(stage, new Region(), settings);
        RaceLabWindow window = build(stage, scene, labs, backends, settings, startup);
        startup.attach(backends, window.view::askForServer);
        afterFirstFrame(scene, startup::startAll);
        stage.show();
        return window;
    }

    /** The window's scene on {@code stage}, sized for this screen, in the theme last chosen, showing {@code root}. */
    private static Scene scene(Stage stage, Parent root, Settings settings) {
        Palette.use(Theme.named(settings.get(Settings.THEME).orElse("light")));
        javafx.geometry.Rectangle2D screen = javafx.stage.Screen.getPrimary().getVisualBounds();
        Scene scene = new Scene(root, Math.min(1440, screen.getWidth() * 0.95), Math.min(900, screen.getHeight() * 0.92));
        Themes.apply(scene, Palette.theme());
        stage.setScene(scene);
        stage.getIcons().setAll(icons());
        stage.titleProperty().unbind();
        stage.setTitle("RaceLab");
        stage.setMinWidth(960);
        stage.setMinHeight(600);
        return scene;
    }

    /** RaceLab's icon in the sizes a window manager picks from (drawn in {@code assets/icons}). */
    private static List<Image> icons() {
        return ICON_SIZES.stream()
                .map(size -> new Image(RaceLabWindow.class.getResource("icon/racelab-" + size + ".png").toExternalForm()))
                .toList();
    }

    /** The lab the window opens on: the one chosen last time, else the first. */
    private static Lab chosen(Labs labs, Settings settings) {
        return settings.get(Settings.LAB).flatMap(labs::find).orElse(labs.all().get(0));
    }

    /** Builds the window proper as the root of {@code scene}. */
    private static RaceLabWindow build(Stage stage, Scene scene, Labs labs, Backends backends, Settings settings,
                                       ServerStartup startup) {
        Session session = new Session(Clock.system(), id -> labs.find(id).orElse(null));
        MainView view = new MainView(session, labs, backends, settings, startup);
        scene.setRoot(view);
        view.installShortcuts(scene);
        stage.titleProperty().bind(Bindings.createStringBinding(() -> {
            RecordingFiles.Source source = view.recordings().sourceProperty().get();
            return source == null || !session.replayingProperty().get() ? "RaceLab"
                    : source.file().getFileName() + " — RaceLab";
        }, view.recordings().sourceProperty(), session.replayingProperty()));
        stage.setOnHiding(e -> {
            view.labFiles().stop();
            view.endClass();
            Run run = session.run();
            if (run != null && run.phase().live()) {
                run.stop();
                try {
                    run.awaitOutcome(Duration.ofSeconds(5));
                } catch (Exception ignored) {
                    // Closing anyway; the servers' shutdown ends what is left.
                }
            }
        });
        view.selectLab(chosen(labs, settings).id());
        if (settings.problem() != null) {
            view.banner().showIdle(settings.problem());
        }
        return new RaceLabWindow(view, session);
    }

    /**
     * Runs {@code action} once the first frame is laid out and handed to the renderer: building the
     * window proper before that would hold the first frame back.
     */
    private static void afterFirstFrame(Scene scene, Runnable action) {
        Runnable[] once = new Runnable[1];
        once[0] = () -> {
            scene.removePostLayoutPulseListener(once[0]);
            Platform.runLater(action);
        };
        scene.addPostLayoutPulseListener(once[0]);
    }

    public MainView view() {
        return view;
    }

    public Session session() {
        return session;
    }
}
