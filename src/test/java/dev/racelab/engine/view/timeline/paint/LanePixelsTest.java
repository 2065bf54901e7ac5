package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ManualClock;
import dev.racelab.engine.Recorder;
import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.Theme;
import dev.racelab.engine.view.timeline.TimelineModel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The lanes' pixels are kept from one frame to the next while nothing they show changes (the
 * pointer moving, a lane selected). Whatever does change them, the window must show it at once:
 * after each change, the pixels of the painter that kept its buffer are those a painter new to the
 * timeline paints, and they differ from the frame before.
 */
@Tag("engine")
class LanePixelsTest {

    private static final int WIDTH = 600;
    private static final int HEIGHT = 300;

    private final ManualClock clock = new ManualClock();
    private final Recorder recorder = new Recorder(clock, 100_000);
    private final TimelineModel model = new TimelineModel(recorder);
    private final Feed feed = new Feed(recorder, model::accept);
    private final TimelineLayout layout = new TimelineLayout();
    private final LanePixels kept = new LanePixels(layout, new PaintColours(Theme.LIGHT));

    @Test
    void whatChangesThePictureIsShownAtOnceAndNothingElseRepaints() {
        SplittableRandom random = new SplittableRandom(7);
        recorder.record(0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal());
        for (int w = 1; w <= 4; w++) {
            recorder.record(w, EventKind.ACTOR, "client-" + w, Actor.Kind.WORKER.ordinal());
        }
        recorder.record(0, EventKind.RUN_STARTED, "test", 4);
        events(random, 2_000);
        layout.model = model;
        layout.width = WIDTH + layout.gutter();
        layout.height = HEIGHT + layout.axisHeight();
        // Twice the run so far: what happens next is in view too.
        layout.nanosPerPixel = 2.0 * model.latest() / WIDTH;
        layout.now = model.latest();
        int[] before = frame();

        assertArrayEquals(before, frame(), "a frame with nothing changed");
        changed(before, "a worker's next state", l -> {
            clock.advance(Duration.ofMillis(5));
            recorder.state(3, ActorState.FAILED, "row");
            clock.advance(Duration.ofMillis(5));
            recorder.state(3, ActorState.RUNNING, "row");
            feed.catchUp();
        });
        changed(frame(), "the clock moving on (the open segments grow)", l -> l.now += 20_000_000);
        changed(frame(), "zoomed in", l -> l.nanosPerPixel /= 3);
        changed(frame(), "panned", l -> l.viewStart += 40 * l.nanosPerPixel);
        changed(frame(), "a new worker's lane", l -> {
            recorder.record(5, EventKind.ACTOR, "client-5", Actor.Kind.WORKER.ordinal());
            recorder.state(5, ActorState.WAITING, "row");
            feed.catchUp();
        });
        changed(frame(), "scrolled down", l -> {
            l.fixedLaneHeight = 90;
            l.scrollY = 45;
        });
    }

    /** After {@code change}, the kept painter shows what a new one does, which is not {@code before}. */
    private void changed(int[] before, String what, Consumer<TimelineLayout> change) {
        change.accept(layout);
        int[] after = frame();
        assertFalse(java.util.Arrays.equals(before, after), what + ": the picture should change");
        assertArrayEquals(fresh(), after, what + ": the kept pixels are stale");
    }

    /** The kept painter's frame, copied (its buffer is painted over in place). */
    private int[] frame() {
        return paint(kept).clone();
    }

    private int[] fresh() {
        return paint(new LanePixels(layout, new PaintColours(Theme.LIGHT)));
    }

    private int[] paint(LanePixels pixels) {
        layout.orderLanes();
        double laneH = layout.laneHeight();
        int first = Math.max(0, (int) Math.floor(layout.scrollY / laneH));
        int last = Math.min(layout.order.length - 1, (int) Math.ceil((layout.scrollY + HEIGHT) / laneH));
        return pixels.paint(first, last, laneH, WIDTH, HEIGHT);
    }

    private void events(SplittableRandom random, int count) {
        ActorState[] states = {ActorState.RUNNING, ActorState.WAITING, ActorState.CRITICAL, ActorState.DELAYED};
        for (int i = 0; i < count; i++) {
            clock.advance(Duration.ofNanos(10_000 + random.nextInt(200_000)));
            int worker = 1 + random.nextInt(4);
            if (random.nextInt(4) == 0) {
                recorder.record(worker, EventKind.READ, "counter", i);
            } else {
                recorder.state(worker, states[random.nextInt(states.length)], "row");
            }
        }
        feed.catchUp();
    }
}
