package dev.racelab.ui.timeline;

import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.timeline.TimelineModel;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.EventLog;
import dev.racelab.engine.Event;
import dev.racelab.engine.ManualClock;
import dev.racelab.engine.Recorder;
import dev.racelab.ui.look.Palette;
import javafx.scene.Scene;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The timeline drawn from a small recording: a worker runs for a second, waits for a second, runs
 * again. What a user sees must be that story, from any position of the view.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class TimelineViewTest {

    private static final long SECOND = 1_000_000_000L;

    private TimelineView view;

    @Start
    void start(Stage stage) {
        view = new TimelineView();
        stage.setScene(new Scene(view, 900, 260));
        stage.show();
    }

    private static TimelineModel waitInTheMiddle() {
        ManualClock clock = new ManualClock();
        Recorder recorder = new Recorder(clock);
        List<Actor> actors = List.of(new Actor(0, "run", Actor.Kind.RUN),
                new Actor(1, "client-1", Actor.Kind.WORKER));
        for (Actor actor : actors) {
            recorder.record(actor.id(), EventKind.ACTOR, actor.name(), actor.kind().ordinal());
        }
        recorder.record(0, EventKind.RUN_STARTED, "test", 1);
        ActorState[] story = {ActorState.RUNNING, ActorState.WAITING, ActorState.RUNNING, ActorState.DONE};
        for (ActorState state : story) {
            clock.advance(Duration.ofNanos(SECOND));
            recorder.state(1, state, "row lock");
        }
        TimelineModel model = new TimelineModel(recorder);
        new Feed(recorder, model::accept).catchUp();
        return model;
    }

    @Test
    void theWaitTakesTheQuarterOfTheRunItLasted() {
        WritableImage[] shot = new WritableImage[1];
        WaitForAsyncUtils.waitForAsyncFx(5_000, () -> {
            view.setModel(waitInTheMiddle());
            view.fit();
            view.render(4 * SECOND, false);
            shot[0] = view.snapshot(null, null);
        });
        int waiting = widestRunOf(shot[0], Palette.of(ActorState.WAITING.ink()));
        int running = widestRunOf(shot[0], Palette.of(ActorState.RUNNING.ink()));
        double width = shot[0].getWidth();
        // fit() shows 4 s plus 2 %; the wait is one of those seconds.
        assertTrue(Math.abs(waiting - width * 0.2) < width * 0.06, "waiting " + waiting + " px of " + width);
        assertTrue(Math.abs(running - width * 0.2) < width * 0.06, "running " + running + " px of " + width);
    }

    @Test
    void panningPixelByPixelPastEverySegmentEdgeDrawsEveryFrame() {
        WaitForAsyncUtils.waitForAsyncFx(20_000, () -> {
            view.setModel(waitInTheMiddle());
            // One millisecond a pixel and whole seconds between events: at some step a segment
            // starts exactly on the right edge of the view, and at another exactly on the left.
            view.setView(1_000_000, 0);
            for (int step = 0; step < 4_200; step++) {
                view.pan(1);
                assertDoesNotThrow(() -> view.render(4 * SECOND, false));
            }
        });
    }

    @Test
    void aRecordWhoseReadsHaveNoPeriodIsDrawnAndTheFrameEnds() {
        // A crafted file: reads of the server every 0 µs (and less), a value between them. Such reads
        // once gave a late read's gap the start of the label before it, and drawing the lane's words
        // went back and forth between the two for ever.
        List<Event> events = new ArrayList<>();
        events.add(new Event(0, 0, 0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal()));
        events.add(new Event(1, 0, 1, EventKind.ACTOR, "counter row", Actor.Kind.SERVER.ordinal()));
        events.add(new Event(2, 0, 0, EventKind.RUN_STARTED, "s", 0));
        long[] periods = {0, -5, 0, Long.MIN_VALUE, 0};
        for (int i = 0; i < periods.length; i++) {
            events.add(new Event(events.size(), 100 + i * 900L, 1, EventKind.SERVER_SAMPLE, null, periods[i]));
            events.add(new Event(events.size(), 100 + i * 900L, 1, EventKind.SERVER_VALUE, "counter", 5));
        }
        TimelineModel model = new TimelineModel(EventLog.of(events, 0));
        new Feed(EventLog.of(events, 0), model::accept).catchUp();
        Lane lane = model.lanes.get(1);
        for (int s = 1; s < lane.labelStart.size(); s++) {
            assertTrue(lane.labelStart.get(s) >= lane.labelStart.get(s - 1), "labels in time order");
        }
        WaitForAsyncUtils.waitForAsyncFx(10_000, () -> {
            view.setModel(model);
            view.setView(1, 0);
            assertTrue(view.render(5_000, false), "a frame of the first 1,000 ns");
            view.fit();
            assertTrue(view.render(5_000, false), "a frame of the whole run");
        });
    }

    /** The longest horizontal run of {@code color} in any row of {@code image}. */
    private static int widestRunOf(WritableImage image, Color color) {
        PixelReader reader = image.getPixelReader();
        int target = Palette.argb(color);
        int widest = 0;
        for (int y = 0; y < (int) image.getHeight(); y++) {
            int run = 0;
            for (int x = 0; x < (int) image.getWidth(); x++) {
                run = reader.getArgb(x, y) == target ? run + 1 : 0;
                widest = Math.max(widest, run);
            }
        }
        return widest;
    }
}
