package dev.racelab.engine;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

@Tag("engine")
class RecorderTest {

    @Test
    void concurrentWritersLeaveAGapFreeLogInEachWritersOwnOrder() throws Exception {
        int threads = 8;
        int each = 50_000;
        Recorder recorder = new Recorder(new ManualClock(), 1_000_000);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int actor = t;
            Thread writer = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    recorder.record(actor, EventKind.WRITE, null, i);
                }
            });
            writer.start();
            writers.add(writer);
        }
        go.countDown();
        for (Thread writer : writers) {
            writer.join();
        }
        assertEquals((long) threads * each, recorder.size());
        long[] next = new long[threads];
        long[] seq = {0};
        recorder.drain(0, Integer.MAX_VALUE, event -> {
            assertEquals(seq[0]++, event.seq(), "dense sequence numbers");
            assertEquals(next[event.actor()]++, event.value(), "each writer's events in its order");
        });
        assertEquals((long) threads * each, seq[0]);
    }

    @Test
    void aFullLogDropsOrdinaryEventsButKeepsViolations() {
        Recorder recorder = new Recorder(new ManualClock(), Recorder.RESERVE + 100);
        for (int i = 0; i < 150; i++) {
            recorder.record(1, EventKind.READ, null, i);
        }
        assertEquals(100, recorder.size());
        assertEquals(50, recorder.dropped());
        Event violation = recorder.record(1, EventKind.VIOLATION, "lost", 1);
        assertNotNull(violation, "violations use the reserve");
        assertEquals(101, recorder.size());
        assertNull(recorder.record(1, EventKind.READ, null, 0));
        assertEquals(51, recorder.dropped());
    }

    @Test
    void drainContinuesWhereTheLastOneStopped() {
        Recorder recorder = new Recorder(new ManualClock(), Recorder.RESERVE + 1_000);
        for (int i = 0; i < 10; i++) {
            recorder.record(0, EventKind.NOTE, "n" + i, i);
        }
        List<Event> seen = new ArrayList<>();
        long cursor = recorder.drain(0, 4, seen::add);
        assertEquals(4, cursor);
        cursor = recorder.drain(cursor, 100, seen::add);
        assertEquals(10, cursor);
        assertEquals(10, seen.size());
        assertTrue(seen.stream().map(Event::value).toList().equals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L)));
        assertEquals(10, recorder.drain(cursor, 100, seen::add), "nothing new");
    }

    @Test
    void eventsCarryTheClocksTime() {
        ManualClock clock = new ManualClock(1_000);
        Recorder recorder = new Recorder(clock, Recorder.RESERVE + 10);
        Event first = recorder.record(0, EventKind.NOTE, null, 0);
        clock.advance(Duration.ofNanos(500));
        Event second = recorder.state(3, ActorState.WAITING, "row");
        assertEquals(1_000, first.nanos());
        assertEquals(1_500, second.nanos());
        assertEquals(ActorState.WAITING, second.state());
        assertEquals(3, second.actor());
    }

    @Test
    void aClockThatFailsOnceHidesNoLaterEvent() {
        FailingClock clock = new FailingClock(new ManualClock(1_000));
        Recorder recorder = new Recorder(clock, Recorder.RESERVE + 100);
        recorder.record(1, EventKind.NOTE, "before", 0);
        clock.failNextReading();
        assertThrows(IllegalStateException.class, () -> recorder.record(1, EventKind.NOTE, "unlucky", 1),
                "the caller learns that its event was not recorded");
        Event after = recorder.record(1, EventKind.NOTE, "after", 2);

        assertNotNull(after);
        assertEquals(2, recorder.size(), "the failed call left no slot that readers stop at");
        List<Event> events = recorder.snapshot();
        assertEquals(List.of("before", "after"), events.stream().map(Event::subject).toList());
        assertEquals(List.of(0L, 1L), events.stream().map(Event::seq).toList(), "sequence numbers stay dense");
    }

    @Test
    void aSegmentThatCannotBeAllocatedIsPassedAsLostAndTheLogGoesOn() {
        int segment = Recorder.SEGMENT_SIZE;
        ManualClock clock = new ManualClock(1_000);
        Recorder recorder = new Recorder(clock, 4 * segment, index -> {
            if (index == 1) {
                throw new OutOfMemoryError("no memory for segment 1");
            }
            return new Event[segment];
        });
        for (int i = 0; i < segment - 1; i++) {
            recorder.record(1, EventKind.WRITE, null, i);
        }
        clock.advance(Duration.ofNanos(4_000));
        recorder.record(1, EventKind.WRITE, "last before", 0);

        assertThrows(OutOfMemoryError.class, () -> recorder.record(1, EventKind.WRITE, "first of segment 1", 0),
                "the writer whose segment could not be allocated gets the error");
        int droppedInSegment1 = 0;
        for (int i = 1; i < segment; i++) {
            try {
                if (recorder.record(1, EventKind.WRITE, null, i) == null) {
                    droppedInSegment1++;
                }
            } catch (OutOfMemoryError e) {
                fail("only the writer that tried to allocate the segment gets the error, not writer " + i);
            }
        }
        Event next = recorder.record(1, EventKind.WRITE, "first of segment 2", 0);

        assertNotNull(next, "segment 2 is allocated as usual");
        assertEquals(2L * segment, next.seq());
        assertEquals(segment - 1, droppedInSegment1, "the rest of the lost segment is dropped, not stored");
        assertEquals(segment - 1, recorder.dropped());
        assertEquals(2L * segment + 1, recorder.size(), "readers pass the lost segment");
        Event lost = recorder.get(segment);
        assertEquals(segment, lost.seq());
        assertEquals(EventKind.NOTE, lost.kind());
        assertEquals(Recorder.LOST_SUBJECT, lost.subject());
        assertEquals(Run.RUN_ACTOR, lost.actor());
        assertEquals(5_000, lost.nanos(), "a lost event takes the time of the event before it");
        assertEquals("first of segment 2", recorder.snapshot().get(2 * segment).subject());
    }

    /** A clock that throws from {@link #nanos()} once when told to, as a broken time source might. */
    private static final class FailingClock implements Clock {
        private final Clock time;
        private boolean failNext;

        FailingClock(Clock time) {
            this.time = time;
        }

        void failNextReading() {
            failNext = true;
        }

        @Override
        public long nanos() {
            if (failNext) {
                failNext = false;
                throw new IllegalStateException("clock unavailable");
            }
            return time.nanos();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            time.sleep(nanos);
        }
    }
}
