package dev.racelab.engine.view;

import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.EventLog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A record's events reach every follower once, in order, a bounded batch a frame, ending included. */
@Tag("engine")
class FeedTest {

    private static EventLog events(int count) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(new Event(i, i * 1_000L, 3, EventKind.NOTE, "note " + i, i));
        }
        return EventLog.of(events, 0);
    }

    @Test
    void everyFollowerGetsEveryEventOnceInOrderTheModelFirst() {
        List<String> seen = new ArrayList<>();
        Feed feed = new Feed(events(5), e -> seen.add("model " + e.seq()), e -> seen.add("view " + e.seq()));
        assertTrue(feed.behind());
        feed.catchUp();
        assertFalse(feed.behind());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            expected.add("model " + i);
            expected.add("view " + i);
        }
        assertEquals(expected, seen);
        assertEquals(0, feed.frame(), "nothing twice");
    }

    @Test
    void aFrameTakesABoundedBatchAndTheRestWaitsForTheNext() {
        int count = Feed.PER_FRAME + 10;
        long[] taken = {0};
        Feed feed = new Feed(events(count), e -> taken[0]++);
        assertEquals(3, feed.frame(3));
        assertEquals(Feed.PER_FRAME, feed.frame(Integer.MAX_VALUE), "never more than a frame's batch, however many are asked");
        assertTrue(feed.behind());
        assertEquals(count - 3 - Feed.PER_FRAME, feed.frame());
        assertFalse(feed.behind());
        assertEquals(count, taken[0]);
    }
}
