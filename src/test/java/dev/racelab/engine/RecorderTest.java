package dev.racelab.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        clock.advance(java.time.Duration.ofNanos(500));
        Event second = recorder.state(3, ActorState.WAITING, "row");
        assertEquals(1_000, first.nanos());
        assertEquals(1_500, second.nanos());
        assertEquals(ActorState.WAITING, second.state());
        assertEquals(3, second.actor());
    }
}
