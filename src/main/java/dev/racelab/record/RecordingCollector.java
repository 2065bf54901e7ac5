package dev.racelab.record;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps everything a recording holds, for a window that shows every event: each run as a
 * {@link RunRecord}. Subjects repeat by the hundred thousand ("before-read", "counter row"): each
 * distinct one is kept once, up to {@link #SHARED} of them, which halves what a large recording
 * costs in memory.
 */
final class RecordingCollector implements RecordingSink {

    /** How many distinct subjects are shared; those after are kept as read. */
    private static final int SHARED = 1 << 14;

    private final List<RunRecord> runs = new ArrayList<>();
    private final Map<String, String> subjects = new HashMap<>();
    private RunHeader header;
    private Map<String, String> backend;
    private List<Event> events;
    private Recording recording;

    @Override
    public void run(int number, RunHeader runHeader, Map<String, String> servedBy) {
        header = runHeader;
        backend = servedBy;
        events = new ArrayList<>();
    }

    @Override
    public void event(Event event) {
        String subject = event.subject();
        String shared = subject == null ? null : subjects.get(subject);
        if (shared == null && subject != null && subjects.size() < SHARED) {
            subjects.put(subject, subject);
        }
        events.add(shared == null || shared == subject ? event
                : new Event(event.seq(), event.nanos(), event.actor(), event.kind(), shared, event.value()));
    }

    @Override
    public void outcome(Outcome outcome, long droppedEvents) {
        runs.add(RunRecord.loaded(header, events, droppedEvents, outcome, backend));
        events = null;
    }

    @Override
    public void end(RecordingEnd end) {
        recording = new Recording(runs, end.elapsedMs(), end.startupMs(), end.interrupted(), end.planned(),
                end.serverFailure());
    }

    /** The recording, once its end line was read. */
    Recording recording() {
        return recording;
    }
}
