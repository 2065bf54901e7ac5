package dev.racelab.engine;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A loaded run's events, packed: every field of every event comes back as it went in. */
@Tag("engine")
class PackedEventLogTest {

    @Test
    void everyEventComesBackEqualAcrossChunks() {
        SplittableRandom random = new SplittableRandom(7);
        EventKind[] kinds = EventKind.values();
        List<Event> events = new ArrayList<>();
        int count = 2 * PackedEventLog.CHUNK + 5;
        for (int seq = 0; seq < count; seq++) {
            String subject = switch (seq % 4) {
                case 0 -> null;
                case 1 -> "counter row";
                case 2 -> "subject " + seq;
                default -> "";
            };
            events.add(new Event(seq, Long.MAX_VALUE - random.nextLong(1L << 40), random.nextInt(4096),
                    kinds[random.nextInt(kinds.length)], subject, random.nextLong()));
        }
        events.set(3, new Event(3, -5, Short.MAX_VALUE, EventKind.STATE, "x", Long.MIN_VALUE));

        EventLog log = EventLog.of(events, 11);

        assertEquals(count, log.size());
        assertEquals(11, log.dropped());
        for (int seq = 0; seq < count; seq++) {
            assertEquals(events.get(seq), log.get(seq), "event " + seq);
        }
        assertNull(log.get(count));
        assertNull(log.get(-1));
        assertEquals(events, log.snapshot());
        List<Event> walked = new ArrayList<>();
        log.upToNow().forEach(walked::add);
        assertEquals(events, walked);
    }

    @Test
    void equalSubjectsAreOneString() {
        PackedEventLog.Builder builder = new PackedEventLog.Builder();
        builder.add(new Event(0, 1, 1, EventKind.READ, new String("counter"), 1));
        builder.add(new Event(1, 2, 2, EventKind.READ, new String("counter"), 2));
        PackedEventLog log = builder.build(0);

        assertSame(log.get(0).subject(), log.get(1).subject());
    }

    @Test
    void anEmptyLogHasNoEvents() {
        EventLog log = new PackedEventLog.Builder().build(0);

        assertEquals(0, log.size());
        assertNull(log.get(0));
    }

    @Test
    void eventsOutOfSequenceOrOnAnImpossibleLaneAreRefused() {
        PackedEventLog.Builder builder = new PackedEventLog.Builder();
        assertThrows(IllegalArgumentException.class,
                () -> builder.add(new Event(1, 0, 0, EventKind.READ, null, 0)));
        assertThrows(IllegalArgumentException.class,
                () -> builder.add(new Event(0, 0, Short.MAX_VALUE + 1, EventKind.READ, null, 0)));
        assertThrows(IllegalArgumentException.class,
                () -> builder.add(new Event(0, 0, -1, EventKind.READ, null, 0)));
    }
}
