package dev.racelab.engine.explore;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Schedule;
import dev.racelab.engine.Steering;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A scheduled run's passages in words, read from its record: for each passage, who went and what
 * it did before its next gate ({@code client-1 read 0 · client-2 read 0 · client-1 write 1 ·
 * client-2 write 1}). What a worker did is its first telling event after the passage; a passage
 * after which it did nothing the record tells is named by what it asked for and still waits for,
 * or by the gate it reached. The schedule ends where the run's lane says so (a note: it ended,
 * or nothing can move the workers any more) or the run stops: what workers do as it stops (forks
 * put down) is no passage's.
 */
public final class Interleaving {

    /** The events that say what a worker did. */
    private static final Set<EventKind> TELLING = EnumSet.of(EventKind.READ, EventKind.WRITE, EventKind.TOKEN,
            EventKind.WRITE_ACCEPTED, EventKind.WRITE_REJECTED, EventKind.JOB_ADDED, EventKind.JOB_TAKEN,
            EventKind.JOB_SENT, EventKind.LOCK_ACQUIRED, EventKind.LOCK_RELEASED, EventKind.LOCK_REFUSED,
            EventKind.RETRY, EventKind.STEP_SENT, EventKind.UNLOCK_FALSE, EventKind.ERROR);
    /** Kinds whose value is worth saying: the value read, written, or the token. */
    private static final Set<EventKind> VALUED = EnumSet.of(EventKind.READ, EventKind.WRITE, EventKind.TOKEN);

    /** The key of a time step still open: no actor has it. */
    private static final int TIME = -1;

    private Interleaving() {
    }

    /** The passages of {@code record}, in order, each in words. */
    public static List<String> passages(RunRecord record) {
        Map<Integer, String> names = new HashMap<>();
        Map<Integer, String> gate = new HashMap<>();
        Map<Integer, Integer> open = new HashMap<>();
        List<String> who = new ArrayList<>();
        List<String> did = new ArrayList<>();
        Map<Integer, String> asked = new HashMap<>();
        for (Event e : record.events().upToNow()) {
            int actor = e.actor();
            if (Steering.ends(e) || e.kind() == EventKind.RUN_STOPPING) {
                break;
            }
            switch (e.kind()) {
                case ACTOR -> {
                    if (e.value() == Actor.Kind.WORKER.ordinal()) {
                        names.put(actor, e.subject());
                    }
                }
                case STEP -> {
                    boolean time = Schedule.TIME_WORD.equals(e.subject());
                    open.put(time ? TIME : actor, who.size());
                    who.add(time ? "time passes" : names.getOrDefault(actor, "?"));
                    did.add(null);
                }
                case STATE -> {
                    ActorState state = e.state();
                    if (state == ActorState.AT_GATE) {
                        gate.put(actor, e.subject());
                        Integer at = open.remove(actor);
                        if (at != null && did.get(at) == null) {
                            did.set(at, "to " + e.subject());
                        }
                    } else if (state == ActorState.DONE || state == ActorState.FAILED) {
                        Integer at = open.remove(actor);
                        if (at != null && did.get(at) == null) {
                            did.set(at, state == ActorState.DONE ? "finishes" : "fails");
                        }
                    }
                }
                case LOCK_REQUESTED -> {
                    Integer at = open.get(actor);
                    if (at != null && did.get(at) == null) {
                        asked.put(at, "waits for " + e.subject());
                    }
                }
                default -> {
                    Integer at = open.get(actor);
                    if (at != null && did.get(at) == null && TELLING.contains(e.kind())) {
                        did.set(at, words(e));
                    }
                    // What time passing led to: the first thing a worker then did.
                    Integer time = open.get(TIME);
                    if (time != null && names.containsKey(actor) && TELLING.contains(e.kind())) {
                        did.set(time, "(" + names.get(actor) + " " + words(e) + ")");
                        open.remove(TIME);
                    }
                }
            }
        }
        List<String> passages = new ArrayList<>(who.size());
        for (int i = 0; i < who.size(); i++) {
            if (did.get(i) == null && asked.containsKey(i)) {
                did.set(i, asked.get(i));
            }
            String what = did.get(i) == null ? (who.get(i).equals("time passes") ? "" : " passes") : " " + did.get(i);
            passages.add(who.get(i) + what);
        }
        return passages;
    }

    /** The passages joined: {@code client-1 read 0 · client-2 read 0 · …}. */
    public static String of(RunRecord record) {
        return String.join(" · ", passages(record));
    }

    private static String words(Event e) {
        if (e.kind() == EventKind.STEP_SENT && e.subject() != null && e.subject().contains(":")) {
            return "sends " + e.subject().substring(0, e.subject().indexOf(':'));
        }
        if (e.subject() != null && !e.subject().isEmpty()) {
            switch (e.kind()) {
                case LOCK_ACQUIRED -> {
                    return "acquires " + e.subject();
                }
                case LOCK_RELEASED -> {
                    return "releases " + e.subject();
                }
                case LOCK_REFUSED -> {
                    return "is refused " + e.subject();
                }
                default -> {
                }
            }
        }
        String kind = e.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return VALUED.contains(e.kind()) ? kind + " " + e.value() : kind;
    }
}
