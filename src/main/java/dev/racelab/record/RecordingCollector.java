package dev.racelab.record;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.PackedEventLog;
import dev.racelab.engine.Printable;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps everything a recording holds, for a window that shows every event: each run as a
 * {@link RunRecord}. Its text is kept as the window shows it: a file's control characters as
 * escapes ({@link Printable#field}; line breaks kept, which a run's own messages and an isolation
 * step's SQL have, and the separators an isolation step's table is written with), so a crafted file
 * cannot turn a label's words around (U+202E) or hide them.
 * A run's events are kept packed ({@link PackedEventLog}: 23 bytes an event, each distinct subject
 * once), not as an object each.
 */
final class RecordingCollector implements RecordingSink {

    private final List<RunRecord> runs = new ArrayList<>();
    private final List<dev.racelab.engine.lab.Lab> labs = new ArrayList<>();
    private RunHeader header;
    private Map<String, String> backend;
    private PackedEventLog.Builder events;
    private Recording recording;

    @Override
    public void lab(dev.racelab.engine.lab.Lab lab) {
        labs.add(lab);
    }

    @Override
    public void run(int number, RunHeader runHeader, Map<String, String> servedBy) {
        header = runHeader;
        backend = new LinkedHashMap<>();
        servedBy.forEach((service, what) -> backend.put(Printable.line(service), Printable.line(what)));
        events = new PackedEventLog.Builder();
    }

    @Override
    public void event(Event event) {
        String subject = shown(event.subject());
        events.add(subject == event.subject() ? event
                : new Event(event.seq(), event.nanos(), event.actor(), event.kind(), subject, event.value()));
    }

    /**
     * A subject as the window shows it: escaped ({@link Printable#field}) between the separators
     * an isolation step's result table is written with (NUL, record and unit separators), which
     * stay: the window reads the table back from them.
     */
    private static String shown(String subject) {
        if (subject == null) {
            return null;
        }
        StringBuilder shown = new StringBuilder(subject.length());
        int from = 0;
        for (int i = 0; i <= subject.length(); i++) {
            char c = i < subject.length() ? subject.charAt(i) : 0;
            if (i == subject.length() || c == 0 || c == 0x1e || c == 0x1f) {
                shown.append(Printable.field(subject.substring(from, i)));
                if (i < subject.length()) {
                    shown.append(c);
                }
                from = i + 1;
            }
        }
        String text = shown.toString();
        return text.equals(subject) ? subject : text;
    }

    @Override
    public void outcome(Outcome outcome, long droppedEvents) {
        Map<String, Long> violations = new LinkedHashMap<>();
        outcome.violations().forEach((name, count) -> violations.put(Printable.line(name), count));
        Map<String, Number> metrics = new LinkedHashMap<>();
        outcome.metrics().forEach((name, value) -> metrics.put(Printable.line(name), value));
        runs.add(RunRecord.loaded(header, events.build(droppedEvents), new Outcome(outcome.verdict(),
                Printable.field(outcome.headline()), Printable.field(outcome.explanation()), violations, metrics,
                outcome.places()), backend));
        events = null;
    }

    @Override
    public void end(RecordingEnd end) {
        recording = new Recording(runs, end.elapsedMs(), end.startupMs(), end.interrupted(), end.planned(),
                end.serverFailure(), labs);
    }

    /** The recording, once its end line was read. */
    Recording recording() {
        return recording;
    }
}
