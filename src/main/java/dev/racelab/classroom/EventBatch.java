package dev.racelab.classroom;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A participant's workers' events as they travel to the host: one JSON array per batch, an event
 * {@code [serverNanos, worker, "KIND", value, subject]}. What a host reads it trusts no further than
 * a recording: only the kinds a worker's lane may hold, and none pointing at another event (a
 * sequence number means nothing on another machine), with short, printable subjects.
 */
final class EventBatch {

    /** One worker's event, its time in server time. */
    record Relayed(long serverNanos, int worker, EventKind kind, long value, String subject) {
    }

    /** Kinds that travel: a worker's own; not the run's, the servers', nor arrows to other events. */
    static final Set<EventKind> TRAVELS = travels();
    private static final int MAX_SUBJECT = 200;

    private EventBatch() {
    }

    private static Set<EventKind> travels() {
        Set<EventKind> kinds = EnumSet.noneOf(EventKind.class);
        for (EventKind kind : EventKind.values()) {
            if (!kind.name().startsWith("RUN_") && !kind.name().startsWith("SERVER_")) {
                kinds.add(kind);
            }
        }
        kinds.removeAll(EnumSet.of(EventKind.ACTOR, EventKind.GATES, EventKind.STEP, EventKind.SPEED,
                EventKind.WOKEN, EventKind.OVERWROTE, EventKind.WAITS_FOR, EventKind.DIAGNOSIS, EventKind.MEASURED));
        return kinds;
    }

    /** {@code events} of worker numbers {@code worker}, times turned to server time by {@code clock}. */
    static String encode(List<Event> events, int[] worker, ClassClock clock) {
        JsonArray all = new JsonArray();
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            JsonArray one = new JsonArray();
            one.add(clock.toServer(e.nanos()));
            one.add(worker[i]);
            one.add(e.kind().name());
            one.add(e.value());
            one.add(e.subject() == null ? null : new JsonPrimitive(e.subject()));
            all.add(one);
        }
        return all.toString();
    }

    /** The events in {@code text} that a worker of a participant with {@code workers} workers may have sent. */
    static List<Relayed> decode(String text, int workers) {
        List<Relayed> events = new ArrayList<>();
        JsonElement parsed;
        try {
            parsed = JsonParser.parseString(text == null ? "[]" : text);
        } catch (RuntimeException e) {
            return events;
        }
        if (!parsed.isJsonArray()) {
            return events;
        }
        for (JsonElement element : parsed.getAsJsonArray()) {
            try {
                JsonArray one = element.getAsJsonArray();
                int worker = one.get(1).getAsInt();
                EventKind kind = EventKind.valueOf(one.get(2).getAsString());
                long value = one.get(3).getAsLong();
                if (worker < 0 || worker >= workers || !TRAVELS.contains(kind)) {
                    continue;
                }
                if (kind == EventKind.STATE) {
                    ActorState.byOrdinal(value);
                }
                String subject = one.get(4).isJsonNull() ? null : printable(one.get(4).getAsString());
                events.add(new Relayed(one.get(0).getAsLong(), worker, kind, value, subject));
            } catch (RuntimeException malformed) {
                // Not an event a participant's RaceLab sends: left out.
            }
        }
        return events;
    }

    private static String printable(String subject) {
        String cut = subject.length() > MAX_SUBJECT ? subject.substring(0, MAX_SUBJECT) + "…" : subject;
        return cut.replaceAll("\\p{Cntrl}", " ");
    }
}
