package dev.racelab.ui.classroom;

import dev.racelab.backend.Backends;
import dev.racelab.classroom.ClassHost;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.tasks.Background;
import dev.racelab.ui.model.ClassControls;
import javafx.application.Platform;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A class the window hosts, on one background thread ({@code class-host}): it opens the class,
 * takes joins until the window asks for a run, runs it, and takes joins again, until the class is
 * closed; closing removes everything of the class from the servers. What it says, and the runs it
 * starts, reach the window on the FX thread.
 */
final class HostedClass implements ClassControls {

    /** What the window hears from the class, on the FX thread. */
    interface Listener {
        void opened(ClassHost host);

        void said(String line);

        /** A run of the class began: the window shows it. */
        void started(Run run);

        void ended(ClassHost.Hosted hosted);

        /** The class is closed (asked, or it could not open or go on: {@code why}, else null). */
        void closed(String why);
    }

    private final Supplier<String> labId;
    private final Listener listener;
    private volatile ClassHost host;
    private volatile RunSpec wanted;
    private volatile boolean running;
    private volatile boolean closing;

    private HostedClass(Supplier<String> labId, Listener listener) {
        this.labId = labId;
        this.listener = listener;
    }

    /** Opens a class on {@code servers} in the background; {@code labId} names the lab each run runs. */
    static HostedClass open(Backends servers, Path home, Supplier<String> labId, boolean delaysKept, Listener listener) {
        HostedClass hosted = new HostedClass(labId, listener);
        Background.run("class-host", () -> hosted.serve(servers, home, delaysKept),
                e -> Platform.runLater(() -> listener.closed("the class could not go on: " + Background.said(e))));
        return hosted;
    }

    private void serve(Backends servers, Path home, boolean delaysKept) throws Exception {
        Consumer<String> say = line -> Platform.runLater(() -> listener.said(line));
        try (ClassHost opened = ClassHost.open(servers, home, say)) {
            opened.keepingDelays(delaysKept).watching(run -> Platform.runLater(() -> listener.started(run)));
            host = opened;
            Platform.runLater(() -> listener.opened(opened));
            while (!closing) {
                RunSpec spec = wanted;
                if (spec == null) {
                    opened.takeJoins(250);
                    continue;
                }
                wanted = null;
                running = true;
                try {
                    ClassHost.Hosted ended = opened.run(labId.get(), spec, opened.seats());
                    Platform.runLater(() -> listener.ended(ended));
                } catch (IllegalArgumentException | IllegalStateException e) {
                    say.accept("The run cannot start: " + e.getMessage());
                } finally {
                    running = false;
                }
            }
            say.accept("Ending the class: removing its login, database and keys…");
        } finally {
            host = null;
        }
        Platform.runLater(() -> listener.closed(null));
    }

    /** The class once it is open; null before and after. */
    ClassHost host() {
        return host;
    }

    /** Whether a run of the class is being prepared or run. */
    boolean running() {
        return running || wanted != null;
    }

    @Override
    public void start(RunSpec spec) {
        ClassHost now = host;
        if (now == null || running()) {
            return;
        }
        if (now.seats().isEmpty()) {
            listener.said("Nobody has joined yet: the run starts once someone has");
            return;
        }
        wanted = spec;
    }

    @Override
    public void pause() {
        ClassHost now = host;
        if (now != null) {
            now.pause();
        }
    }

    @Override
    public void resume() {
        ClassHost now = host;
        if (now != null) {
            now.resume();
        }
    }

    @Override
    public void step(int worker) {
        ClassHost now = host;
        if (now != null) {
            now.step(worker);
        }
    }

    @Override
    public void stop() {
        ClassHost now = host;
        if (now != null) {
            now.stop();
        }
    }

    /** Ends the class: a run going on is stopped and judged first; then everything of the class goes. */
    void close() {
        closing = true;
        wanted = null;
        if (running) {
            stop();
        }
    }

    /** Whether the participants' own delays are left out of the next runs. */
    void keepDelays(boolean keep) {
        ClassHost now = host;
        if (now != null) {
            now.keepingDelays(keep);
        }
    }
}
