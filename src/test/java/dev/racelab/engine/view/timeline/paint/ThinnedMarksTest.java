package dev.racelab.engine.view.timeline.paint;

import dev.racelab.engine.Actor;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Glyph;
import dev.racelab.engine.ManualClock;
import dev.racelab.engine.Recorder;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.timeline.TimelineModel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The timeline finds the marks it draws and the segments wide enough for words by jumping, so
 * a frame costs what it draws, not the events in view. What it finds must be what looking at every
 * mark and every segment in turn finds: of each kind, the first mark in view and then each first
 * at least four pixels on (crosses: one pixel), drawn in the order they happened; and every
 * segment at least as long as asked, in order.
 */
@Tag("engine")
class ThinnedMarksTest {

    private static final EventKind[] MARKED = {EventKind.READ, EventKind.TOKEN, EventKind.WRITE_REJECTED,
        EventKind.VIOLATION, EventKind.WRITE};

    @Test
    void theMarksDrawnAreThoseLookingAtEachInTurnDraws() {
        SplittableRandom random = new SplittableRandom(29);
        MarkerSprites sprites = new MarkerSprites(new int[1], new LanePixels.Colours(new PaintColours(dev.racelab.engine.view.Theme.LIGHT)));
        for (int trial = 0; trial < 40; trial++) {
            Lane lane = lane(random, 1 + random.nextInt(trial < 20 ? 500 : 100_000));
            long end = lane.markTime.get(lane.markTime.size() - 1);
            for (int view = 0; view < 10; view++) {
                int width = 1 + random.nextInt(1_600);
                double nanosPerPixel = view % 3 == 0 ? end * 1.02 / width : Math.max(1, random.nextDouble() * end / 80);
                double viewStart = view % 4 == 0 ? 0 : random.nextDouble() * end - width * nanosPerPixel / 3;
                assertArrayEquals(oracle(lane, width, viewStart, nanosPerPixel),
                        sprites.marksDrawn(lane, width, viewStart, nanosPerPixel),
                        "trial " + trial + ", view " + view);
            }
        }
    }

    @Test
    void theSegmentsLongEnoughForWordsAreEveryOneThatIs() {
        SplittableRandom random = new SplittableRandom(30);
        for (int trial = 0; trial < 40; trial++) {
            Lane lane = lane(random, 1 + random.nextInt(trial < 20 ? 500 : 100_000));
            int n = lane.segStart.size();
            long now = lane.segStart.get(n - 1) + random.nextInt(10_000_000);
            for (int query = 0; query < 30; query++) {
                long min = (long) Math.pow(10, 1 + random.nextDouble() * 7);
                int from = random.nextInt(n);
                int to = from + random.nextInt(n - from);
                int expected = -1;
                for (int s = from; s <= to && expected < 0; s++) {
                    long stop = s + 1 < n ? lane.segStart.get(s + 1) : now;
                    if (stop - lane.segStart.get(s) >= min) {
                        expected = s;
                    }
                }
                assertEquals(expected, lane.nextLongSegment(from, to, min, now),
                        "trial " + trial + ": from " + from + " to " + to + " at least " + min + " ns");
            }
        }
    }

    /** A worker lane with {@code events} marks and states, in bursts and gaps. */
    private static Lane lane(SplittableRandom random, int events) {
        ManualClock clock = new ManualClock();
        Recorder recorder = new Recorder(clock, events + 70_000);
        recorder.record(0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal());
        recorder.record(1, EventKind.ACTOR, "client-1", Actor.Kind.WORKER.ordinal());
        recorder.record(0, EventKind.RUN_STARTED, "test", 1);
        for (int i = 0; i < events; i++) {
            int roll = random.nextInt(100);
            clock.advance(Duration.ofNanos(roll < 70 ? random.nextInt(2_000) : roll < 97 ? random.nextInt(200_000)
                    : random.nextInt(30_000_000)));
            if (random.nextBoolean()) {
                recorder.state(1, dev.racelab.engine.ActorState.values()[random.nextInt(4)], "row");
            } else {
                recorder.record(1, MARKED[random.nextInt(MARKED.length)], "x", i);
            }
        }
        recorder.state(1, dev.racelab.engine.ActorState.RUNNING, "row");
        TimelineModel model = new TimelineModel(recorder);
        new Feed(recorder, model::accept).catchUp();
        return model.lanes.get(1);
    }

    /** Every mark in view in turn, each drawn if far enough from the last of its kind drawn. */
    private static int[] oracle(Lane lane, int width, double viewStart, double nanosPerPixel) {
        int[] lastX = new int[EventKind.values().length];
        Arrays.fill(lastX, Integer.MIN_VALUE / 2);
        double end = viewStart + width * nanosPerPixel;
        List<Integer> drawn = new ArrayList<>();
        for (int m = 0; m < lane.markTime.size(); m++) {
            long t = lane.markTime.get(m);
            if (t > end) {
                break;
            }
            if (t < viewStart) {
                continue;
            }
            int x = (int) ((t - viewStart) * (1.0 / nanosPerPixel));
            EventKind kind = EventKind.values()[lane.markKind.get(m)];
            Glyph glyph = kind.glyph() == null ? Glyph.NONE : kind.glyph();
            if (glyph == Glyph.NONE || x - lastX[kind.ordinal()] < (glyph == Glyph.CROSS ? 1 : 4)) {
                continue;
            }
            lastX[kind.ordinal()] = x;
            drawn.add(m);
        }
        return drawn.stream().mapToInt(Integer::intValue).toArray();
    }
}
