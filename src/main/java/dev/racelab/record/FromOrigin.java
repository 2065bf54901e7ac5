package dev.racelab.record;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.TimeOrigin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Hands each run's events on counted from the run's {@link TimeOrigin}, whatever the file counted
 * from (version 1 from the run's first event; version 2 from the origin already, or a hand-edited
 * file from anywhere). A run's first events wait here until its start is seen, at most {@link
 * #LOOKAHEAD} of them and {@link #LOOKAHEAD_CHARS} of their words (a run's start comes after its
 * lanes are announced and its workers connected: a few thousand events at most); a run with no
 * start among them counts from its first event that is not a lane's announcement, as {@link
 * TimeOrigin} does (a hand-made file whose start comes later still is shown on the timeline from
 * that start, and exported from the earlier origin).
 */
final class FromOrigin implements RecordingSink {

    /** How many events of a run wait for its start, at most. */
    static final int LOOKAHEAD = 1 << 16;
    /** How many characters of their subjects, at most: a file of long lines is read a line at a time still. */
    static final long LOOKAHEAD_CHARS = 16L << 20;

    private final RecordingSink sink;
    private final List<Event> waiting = new ArrayList<>();
    private long waitingChars;
    private TimeOrigin origin;
    /** Where the run's time starts, once decided; {@link TimeOrigin#UNKNOWN} while events wait. */
    private long decided;

    FromOrigin(RecordingSink sink) {
        this.sink = sink;
    }

    @Override
    public void lab(dev.racelab.engine.lab.Lab lab) throws IOException {
        sink.lab(lab);
    }

    @Override
    public void run(int number, RunHeader header, Map<String, String> backend) throws IOException {
        origin = new TimeOrigin();
        decided = TimeOrigin.UNKNOWN;
        waiting.clear();
        waitingChars = 0;
        sink.run(number, header, backend);
    }

    @Override
    public void event(Event event) throws IOException {
        if (decided != TimeOrigin.UNKNOWN) {
            sink.event(TimeOrigin.shifted(event, decided));
            return;
        }
        origin.see(event);
        waiting.add(event);
        waitingChars += event.subject() == null ? 0 : event.subject().length();
        if (origin.settled() || waiting.size() >= LOOKAHEAD || waitingChars >= LOOKAHEAD_CHARS) {
            handOn();
        }
    }

    @Override
    public void outcome(Outcome outcome, long droppedEvents) throws IOException {
        if (decided == TimeOrigin.UNKNOWN) {
            handOn();
        }
        sink.outcome(outcome, droppedEvents);
    }

    @Override
    public void end(RecordingEnd end) throws IOException {
        sink.end(end);
    }

    /** The origin is decided (as far as it can be): the waiting events go on, counted from it. */
    private void handOn() throws IOException {
        decided = origin.nanos() == TimeOrigin.UNKNOWN ? 0 : origin.nanos();
        for (Event e : waiting) {
            sink.event(TimeOrigin.shifted(e, decided));
        }
        waiting.clear();
        waitingChars = 0;
    }
}
