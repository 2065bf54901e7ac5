package dev.racelab.bench;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ManualClock;
import dev.racelab.engine.Recorder;
import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.ui.timeline.TimelineView;
import javafx.animation.AnimationTimer;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;

/**
 * FX-thread time per frame of the timeline with a synthetic recording: 100 lanes and 1,000,000
 * events, while panning and while following a live run whose events arrive frame by frame; then
 * 1000 lanes. Each frame does exactly what the window does: drain new events into the model and
 * render. The time measured is what that costs on the FX thread, frame by frame, driven by a real
 * AnimationTimer.
 *
 * <p>Run with {@code scripts/bench timeline}.
 */
public final class TimelineBenchmark extends Application {

    /** How many events: {@code scripts/bench timeline [events]}, a million unless said. */
    private static final int EVENTS = Integer.parseInt(System.getProperty("bench.events", "1000000").replace("_", ""));
    private static final long RUN_NANOS = 60_000_000_000L;

    private Stage stage;
    private static boolean quiet;

    public static final class Main {
        private Main() {
        }

        public static void main(String[] args) {
            if (args.length > 0) {
                System.setProperty("bench.events", args[0]);
            }
            Application.launch(TimelineBenchmark.class);
        }
    }

    @Override
    public void start(Stage primary) {
        stage = primary;
        Thread thread = new Thread(() -> {
            try {
                // A window that has been open a second has its drawing code compiled; the first
                // pass through a fresh JVM measures the JIT instead. Warm up once, untimed.
                quiet = true;
                scenario("warm-up", 100, false);
                quiet = false;
                System.out.println("(after one untimed warm-up pass of the 100-lane scenario)");
                String events = String.format("%,d events", EVENTS);
                if (!"compact".equals(System.getProperty("bench.lanes"))) {
                    scenario("100 lanes, " + events, 100, false);
                }
                if (System.getProperty("bench.quick") == null) {
                    scenario("1000 lanes, " + events, 1000, false);
                    scenario("1000 lanes, " + events + ", compact lanes", 1000, true);
                }
            } catch (Throwable e) {
                e.printStackTrace();
            } finally {
                Platform.exit();
            }
        }, "timeline-benchmark");
        thread.setDaemon(true);
        thread.start();
    }

    private void scenario(String name, int lanes, boolean compact) throws Exception {
        if (!quiet) {
            System.out.printf("%n== %s (%d cores, load %.1f) ==%n", name, Runtime.getRuntime().availableProcessors(),
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
        ManualClock clock = new ManualClock();
        Recorder recorder = new Recorder(clock, EVENTS + 200_000);
        List<Actor> actors = actors(lanes);
        long[] times = synthesize(recorder, clock, actors);

        TimelineModel[] model = new TimelineModel[1];
        TimelineView[] view = new TimelineView[1];
        onFx(() -> {
            view[0] = new TimelineView();
            view[0].compactProperty().set(compact);
            stage.setScene(new Scene(view[0], 1600, 900));
            stage.show();
        });

        // Following live: the recording arrives over 600 frames, as if the run produced it.
        model[0] = new TimelineModel(recorder);
        Feed feed = new Feed(recorder, model[0]::accept);
        onFx(() -> view[0].setModel(model[0]));
        long perFrame = EVENTS / 600;
        boolean wholeOnly = "whole".equals(System.getProperty("bench.only"));
        long[] live = frames(wholeOnly ? 1 : 600, frame -> {
            long upTo = Math.min(EVENTS, (frame + 1) * perFrame);
            feed.frame((int) perFrame + 1);
            view[0].render(times[(int) Math.max(0, upTo - 1)], true);
        });
        report("following live (" + perFrame + " new events a frame)", live);

        // Panning across the whole recording at a 10-second window, 12 px a frame.
        onFx(() -> {
            feed.catchUp();
            view[0].followLiveProperty().set(false);
            view[0].setView(10e9 / 1400, 0);
        });
        long[] pan = frames(wholeOnly ? 1 : 600, frame -> {
            view[0].pan(12);
            view[0].render(RUN_NANOS, false);
        });
        report("panning, 10 s in view", pan);

        onFx(() -> view[0].fit());
        // Every frame painted anew: the clock moves on (a run going on, the whole of it in view).
        long[] whole = frames(wholeOnly ? 1200 : 120, frame -> {
            view[0].invalidate();
            view[0].render(RUN_NANOS + frame, false);
        });
        report("whole run in view (60 s, every event)", whole);
        if (!wholeOnly) {
            // Redrawn with nothing changed but the pointer over it: the lanes' pixels stay as painted.
            long[] hover = frames(120, frame -> {
                view[0].invalidate();
                view[0].render(RUN_NANOS, false);
            });
            report("the same, the pointer moving over it", hover);
        }
    }

    private static List<Actor> actors(int lanes) {
        List<Actor> actors = new ArrayList<>();
        actors.add(new Actor(0, "run", Actor.Kind.RUN));
        actors.add(new Actor(1, "PostgreSQL locks", Actor.Kind.SERVER));
        actors.add(new Actor(2, "counter row", Actor.Kind.SERVER));
        for (int i = 0; i < lanes; i++) {
            actors.add(new Actor(actors.size(), "client-" + (i + 1), Actor.Kind.WORKER));
        }
        return actors;
    }

    /** A million events over a minute: state changes on every lane, markers, server values. */
    private static long[] synthesize(Recorder recorder, ManualClock clock, List<Actor> actors) {
        int lanes = actors.size() - 3;
        for (Actor actor : actors) {
            recorder.record(actor.id(), EventKind.ACTOR, actor.name(), actor.kind().ordinal());
        }
        SplittableRandom random = new SplittableRandom(42);
        ActorState[] cycle = {ActorState.RUNNING, ActorState.WAITING, ActorState.CRITICAL, ActorState.DELAYED,
            ActorState.RUNNING, ActorState.HOLDING};
        long[] times = new long[EVENTS];
        long step = RUN_NANOS / EVENTS;
        recorder.record(0, EventKind.RUN_STARTED, "synthetic", lanes);
        for (int i = 1; i < EVENTS; i++) {
            clock.advance(Duration.ofNanos(step));
            times[i] = clock.nanos();
            int actor = 3 + random.nextInt(lanes);
            int roll = random.nextInt(100);
            if (roll < 70) {
                recorder.state(actor, cycle[random.nextInt(cycle.length)], "counter row lock");
            } else if (roll < 85) {
                recorder.record(actor, EventKind.READ, "counter", i);
            } else if (roll < 93) {
                recorder.record(actor, EventKind.TOKEN, "fencing token", i);
            } else if (roll < 97) {
                recorder.record(actor, EventKind.WRITE_REJECTED, "book", i);
            } else if (roll < 98) {
                recorder.record(actor, EventKind.VIOLATION, "lost increments", 1);
            } else {
                recorder.record(1 + random.nextInt(2), EventKind.SERVER_VALUE, "counter", i);
            }
        }
        return times;
    }

    private static long[] cpu = new long[0];

    /** Runs {@code work} once per animation frame, timing each (wall time; CPU time kept in {@link #cpu}). */
    private static long[] frames(int count, FrameWork work) throws InterruptedException {
        long[] nanos = new long[count];
        cpu = new long[count];
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        CountDownLatch done = new CountDownLatch(1);
        Throwable[] failure = new Throwable[1];
        Platform.runLater(() -> new AnimationTimer() {
            private int frame;

            @Override
            public void handle(long now) {
                long start = System.nanoTime();
                long startCpu = threads.getCurrentThreadCpuTime();
                try {
                    work.frame(frame);
                } catch (Throwable e) {
                    // A frame that failed drew nothing: its time would flatter the figures.
                    failure[0] = e;
                    stop();
                    done.countDown();
                    return;
                }
                nanos[frame] = System.nanoTime() - start;
                cpu[frame] = threads.getCurrentThreadCpuTime() - startCpu;
                if (++frame == count) {
                    stop();
                    done.countDown();
                }
            }
        }.start());
        done.await();
        if (failure[0] != null) {
            throw new IllegalStateException("a frame failed; no figures", failure[0]);
        }
        return nanos;
    }

    private static void report(String what, long[] nanos) {
        if (quiet) {
            return;
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        long[] cpuSorted = cpu.clone();
        Arrays.sort(cpuSorted);
        System.out.printf("%-44s %4d frames · wall p50 %5.2f p99 %5.2f max %6.2f ms · FX-thread CPU p50 %5.2f "
                + "p99 %5.2f ms%n", what, sorted.length, sorted[sorted.length / 2] / 1e6,
                sorted[(int) (sorted.length * 0.99)] / 1e6, sorted[sorted.length - 1] / 1e6,
                cpuSorted[cpuSorted.length / 2] / 1e6, cpuSorted[(int) (cpuSorted.length * 0.99)] / 1e6);
    }

    private static void onFx(Runnable action) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        Platform.runLater(() -> {
            try {
                action.run();
            } finally {
                done.countDown();
            }
        });
        done.await();
    }

    @FunctionalInterface
    private interface FrameWork {
        void frame(int frame);
    }
}
