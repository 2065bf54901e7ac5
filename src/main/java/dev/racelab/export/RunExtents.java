package dev.racelab.export;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.timeline.Columns;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingSink;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a picture of one run of a recording needs to know before it reads that run: how many runs
 * the file holds, and where each one's timeline ends (a timeline folded to {@link Columns#ONE}, so
 * a run of any length costs next to nothing). Read once, before the run is read again for its
 * picture.
 */
public final class RunExtents implements RecordingSink {

    private final List<RunHeader> headers = new ArrayList<>();
    private final List<dev.racelab.engine.lab.Lab> labs = new java.util.ArrayList<>();
    private final List<Long> ends = new ArrayList<>();
    private TimelineModel timeline;

    private RunExtents() {
    }

    /** Reads {@code file} through. */
    public static RunExtents of(RecordingReader reader, Path file) throws RecordingException {
        return reader.readInto(file, new RunExtents());
    }

    @Override
    public void lab(dev.racelab.engine.lab.Lab lab) {
        labs.add(lab);
    }

    /** Run {@code number}'s lab (1, 2, …), as the recording gives it. */
    public dev.racelab.engine.lab.Lab lab(int number) {
        return labs.get(number - 1);
    }

    @Override
    public void run(int number, RunHeader header, Map<String, String> backend) {
        headers.add(header);
        timeline = TimelineModel.folded(Columns.ONE);
    }

    @Override
    public void event(Event event) {
        timeline.accept(event);
    }

    @Override
    public void outcome(Outcome outcome, long droppedEvents) {
        ends.add(timeline.end());
        timeline = null;
    }

    /** How many runs the recording holds. */
    public int runs() {
        return headers.size();
    }

    /** What run {@code number} (1, 2, …) was. */
    public RunHeader header(int number) {
        return headers.get(number - 1);
    }

    /** Where run {@code number}'s timeline ends, in ns from its origin. */
    public long end(int number) {
        return ends.get(number - 1);
    }
}
