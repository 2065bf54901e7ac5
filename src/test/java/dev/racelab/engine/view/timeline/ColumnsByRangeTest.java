package dev.racelab.engine.view.timeline;

import dev.racelab.engine.view.Feed;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ManualClock;
import dev.racelab.engine.Recorder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The window's lanes are drawn column by column from ranges of segments ({@link ColumnSpans},
 * {@link MostTelling}), at a cost that depends on the columns, not on how many segments a column
 * covers. What each column shows must be exactly what painting every segment one after another
 * shows (the rule the timeline always drew by, kept here as the oracle): the most telling state a
 * column covers, the later of two as telling; on the stripe, the last piece that says something.
 * Lanes of 1 to 200,000 segments, in bursts and gaps, seen whole, zoomed in, half out of view.
 */
@Tag("engine")
class ColumnsByRangeTest {

    private static final ActorState[] STATES = ActorState.values();

    @Test
    void everyColumnShowsWhatPaintingEverySegmentShows() {
        SplittableRandom random = new SplittableRandom(27);
        StateColumns painted = new StateColumns();
        for (int trial = 0; trial < 60; trial++) {
            int segments = trial < 10 ? 1 + trial : random.nextInt(trial < 50 ? 3_000 : 200_000) + 1;
            TimelineModel model = lanes(random, segments);
            Lane lane = model.lanes.get(1);
            long end = model.latest() + random.nextInt(1_000_000);
            for (int view = 0; view < 12; view++) {
                int columns = 1 + random.nextInt(1_600);
                double nanosPerColumn = view % 3 == 0 ? end * 1.02 / columns : Math.max(1, random.nextDouble() * end / 50);
                double start = view % 4 == 0 ? 0 : random.nextDouble() * end - columns * nanosPerColumn / 3;
                painted.paint(lane, columns, start, nanosPerColumn, end);
                int[] expected = oracle(lane, columns, start, nanosPerColumn, end);
                for (int x = 0; x < columns; x++) {
                    assertEquals(expected[x], painted.state(x), "trial " + trial + ", view " + view + ", column " + x
                            + " of " + columns + " (" + segments + " segments)");
                }
            }
        }
    }

    @Test
    void theStripeShowsTheLastPieceThatSaysSomething() {
        SplittableRandom random = new SplittableRandom(28);
        for (int trial = 0; trial < 200; trial++) {
            MostTelling index = new MostTelling();
            int n = 1 + random.nextInt(trial < 100 ? 300 : 70_000);
            int[] keys = new int[n];
            for (int i = 0; i < n; i++) {
                keys[i] = random.nextInt(10) < 7 ? -1 : random.nextInt(4);
                index.add(keys[i]);
            }
            for (int query = 0; query < 50; query++) {
                int from = random.nextInt(n);
                int to = from + random.nextInt(n - from);
                int best = from;
                for (int i = from + 1; i <= to; i++) {
                    if (keys[i] >= keys[best]) {
                        best = i;
                    }
                }
                assertEquals(best, index.winner(from, to), "from " + from + " to " + to + " of " + n);
            }
        }
    }

    /** One worker lane of {@code segments} states, in bursts of short segments between long gaps. */
    private static TimelineModel lanes(SplittableRandom random, int segments) {
        ManualClock clock = new ManualClock();
        Recorder recorder = new Recorder(clock, segments + 70_000);
        recorder.record(0, EventKind.ACTOR, "run", 0);
        recorder.record(1, EventKind.ACTOR, "client-1", dev.racelab.engine.Actor.Kind.WORKER.ordinal());
        recorder.record(0, EventKind.RUN_STARTED, "test", 1);
        for (int i = 0; i < segments; i++) {
            int roll = random.nextInt(100);
            long step = roll < 80 ? random.nextInt(50) : roll < 95 ? random.nextInt(100_000) : random.nextInt(50_000_000);
            clock.advance(Duration.ofNanos(step));
            recorder.state(1, STATES[random.nextInt(STATES.length)], "row");
        }
        TimelineModel model = new TimelineModel(recorder);
        new Feed(recorder, model::accept).catchUp();
        return model;
    }

    /** Paints every segment in turn, as the timeline did before ranges: the rule itself. */
    private static int[] oracle(Lane lane, int columns, double start, double nanosPerColumn, long now) {
        int[] priority = new int[columns];
        int[] state = new int[columns];
        java.util.Arrays.fill(priority, -1);
        java.util.Arrays.fill(state, -1);
        int n = lane.segStart.size();
        double inverse = 1.0 / nanosPerColumn;
        double end = start + columns * nanosPerColumn;
        int last = columns - 1;
        for (int s = 0; s < n; s++) {
            long from = lane.segStart.get(s);
            if (from > end) {
                break;
            }
            ActorState segment = STATES[lane.segState.get(s)];
            if (segment.pattern() == ActorState.Pattern.NONE) {
                continue;
            }
            long stop = s + 1 < n ? lane.segStart.get(s + 1) : now;
            double x0d = (from - start) * inverse;
            double x1d = (stop - start) * inverse;
            if (x1d < 0) {
                continue;
            }
            int x0 = x0d <= 0 ? 0 : x0d >= last ? last : (int) x0d;
            int x1 = x1d >= last ? last : (int) x1d;
            for (int x = x0; x <= x1; x++) {
                if (segment.priority() >= priority[x]) {
                    priority[x] = segment.priority();
                    state[x] = segment.ordinal();
                }
            }
        }
        return state;
    }
}
