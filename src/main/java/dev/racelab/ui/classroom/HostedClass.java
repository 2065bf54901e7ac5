package dev.racelab.ui.classroom;

import dev.racelab.backend.Backends;
import dev.racelab.classroom.ClassHost;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.tasks.Background;
import dev.racelab.ui.model.ClassControls;
import javafx.application.Platform;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A class the window hosts, on one background thread ({@code class-host}): it opens the class,
 * takes joins until the window asks for a run, runs it, and takes joins again, until the class is
 * closed; closing removes everything of the class from the servers. The window's commands (pause,
 * resume, step, stop) reach the participants over the network, so they go out in order on a
 * background job ({@code class-control}), never on the FX thread. What the class says, and the runs
 * it starts, reach the window on the FX thread.
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

    /** A run the window asked for: the lab shown then and its settings. */
    private record Wanted(String lab, RunSpec spec) {
    }

    private final Supplier<String> labId;
    private final Listener listener;
    private final Queue<Consumer<ClassHost>> orders = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sending = new AtomicBoolean();
    private final CountDownLatch gone = new CountDownLatch(1);
    private volatile ClassHost host;
    private volatile Wanted wanted;
    private volatile boolean running;
    private volatile boolean closing;

    private HostedClass(Supplier<String> labId, Listener listener) {
        this.labId = labId;
        this.listener = listener;
    }

    /** Opens a class on {@code servers} in the background; {@code labId} names the lab shown, read on the FX thread. */
    static HostedClass open(Backends servers, Path home, Supplier<String> labId, Listener listener) {
        HostedClass hosted = new HostedClass(labId, listener);
        Background.run("class-host", () -> {
            try {
                hosted.serve(servers, home);
            } finally {
                hosted.gone.countDown();
            }
        }, e -> Platform.runLater(() -> listener.closed("the class could not go on: " + Background.said(e))));
        return hosted;
    }

    private void serve(Backends servers, Path home) throws Exception {
        Consumer<String> say = line -> Platform.runLater(() -> listener.said(line));
        try (ClassHost opened = ClassHost.open(servers, home, say)) {
            opened.watching(run -> Platform.runLater(() -> listener.started(run)));
            host = opened;
            Platform.runLater(() -> listener.opened(opened));
            while (!closing) {
                Wanted next = wanted;
                if (next == null) {
                    opened.takeJoins(250);
                    continue;
                }
                running = true;
                wanted = null;
                try {
                    if (closing) {
                        break;
                    }
                    ClassHost.Hosted ended = opened.run(next.lab(), next.spec(), opened.seats());
                    Platform.runLater(() -> listener.ended(ended));
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    // One run that cannot start or fails: the class stays open for the next.
                    say.accept("The run did not go: " + Background.said(e));
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

    /** Whether a run of the class is asked for, being prepared or run. */
    boolean running() {
        return running || wanted != null;
    }

    /** On the FX thread: the lab shown now is the one the run runs. */
    @Override
    public void start(RunSpec spec) {
        ClassHost now = host;
        if (now == null || running() || closing) {
            return;
        }
        if (now.seats().isEmpty()) {
            listener.said("Nobody has joined yet: the run starts once someone has");
            return;
        }
        wanted = new Wanted(labId.get(), spec);
    }

    @Override
    public void pause() {
        order(ClassHost::pause);
    }

    @Override
    public void resume() {
        order(ClassHost::resume);
    }

    @Override
    public void step(int worker) {
        order(h -> h.step(worker));
    }

    @Override
    public void stop() {
        order(ClassHost::stopRun);
    }

    /** Sends {@code order} to the class after those before it, off the FX thread. */
    private void order(Consumer<ClassHost> order) {
        orders.add(order);
        if (sending.compareAndSet(false, true)) {
            Background.run("class-control", this::send);
        }
    }

    private void send() {
        do {
            for (Consumer<ClassHost> next = orders.poll(); next != null; next = orders.poll()) {
                ClassHost now = host;
                if (now == null) {
                    continue;
                }
                try {
                    next.accept(now);
                } catch (RuntimeException e) {
                    Platform.runLater(() -> listener.said("The class's servers did not take it: " + Background.said(e)));
                }
            }
            sending.set(false);
        } while (!orders.isEmpty() && sending.compareAndSet(false, true));
    }

    /**
     * Ends the class: a run going on, or about to begin, is stopped and judged first; then
     * everything of the class goes.
     */
    void close() {
        closing = true;
        wanted = null;
        // Stopped even if it is only about to begin, after the words before it: no run of the class follows.
        order(ClassHost::stop);
    }

    /** Waits up to {@code within} for the class to be gone from the servers; whether it is. */
    boolean awaitGone(Duration within) throws InterruptedException {
        return gone.await(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether the participants' own delays are left out of the next runs. */
    void keepDelays(boolean keep) {
        ClassHost now = host;
        if (now != null) {
            now.keepingDelays(keep);
        }
    }
}
