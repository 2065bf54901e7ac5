package dev.racelab.record;

import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;

import java.io.IOException;
import java.util.Map;

/**
 * Reads a version 1 recording's notes as what they are now. Before version 2 a lab's view learnt
 * some facts from the words of a {@code NOTE} (a philosopher's wait in the deadlock's cycle, the
 * failure's headline, the instant hunger was measured, a spec's description, a fenced write
 * replaced); they are kinds of their own now ({@code WAITS_FOR}, {@code DIAGNOSIS}, {@code
 * MEASURED}, {@code ABOUT}, {@code REPLACED}), and this is the one place that knows the old words.
 */
final class OldNotes implements RecordingSink {

    private final RecordingSink sink;
    private String lab = "";
    /** The isolation lab's first session's lane: the one that noted the spec. */
    private int firstWorker = -1;

    OldNotes(RecordingSink sink) {
        this.sink = sink;
    }

    @Override
    public void lab(dev.racelab.engine.lab.Lab lab) throws IOException {
        sink.lab(lab);
    }

    @Override
    public void run(int number, RunHeader header, Map<String, String> backend) throws IOException {
        lab = header.lab();
        firstWorker = -1;
        sink.run(number, header, backend);
    }

    @Override
    public void event(Event e) throws IOException {
        if (e.kind() == EventKind.ACTOR && firstWorker < 0 && e.value() == Actor.Kind.WORKER.ordinal()) {
            firstWorker = e.actor();
        }
        sink.event(e.kind() == EventKind.NOTE && e.subject() != null ? now(e) : e);
    }

    private Event now(Event e) {
        String words = e.subject();
        boolean run = e.actor() == Actor.RUN_ID;
        switch (lab) {
            case "dining-philosophers" -> {
                if (!run && words.startsWith("deadlock: waits for ")) {
                    return as(e, EventKind.WAITS_FOR, words.substring("deadlock: waits for ".length()));
                }
                if (run && words.startsWith("failure: ")) {
                    return as(e, EventKind.DIAGNOSIS, words.substring("failure: ".length()));
                }
                if (run && words.equals("hunger measured for the verdict")) {
                    return as(e, EventKind.MEASURED, words);
                }
            }
            case "fencing" -> {
                if (words.startsWith("replaced the price written with token ")) {
                    return as(e, EventKind.REPLACED, null);
                }
            }
            case "isolation" -> {
                if (e.actor() == firstWorker && (words.startsWith("spec ") || words.startsWith("permutation ")
                        || words.startsWith("stated: ") || words.startsWith("by hand"))) {
                    return as(e, EventKind.ABOUT, words);
                }
            }
            default -> { }
        }
        return e;
    }

    private static Event as(Event e, EventKind kind, String subject) {
        return new Event(e.seq(), e.nanos(), e.actor(), kind, subject, e.value());
    }

    @Override
    public void outcome(Outcome outcome, long droppedEvents) throws IOException {
        sink.outcome(outcome, droppedEvents);
    }

    @Override
    public void end(RecordingEnd end) throws IOException {
        sink.end(end);
    }
}
