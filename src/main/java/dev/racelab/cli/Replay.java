package dev.racelab.cli;

import dev.racelab.engine.Event;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingEnd;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingSink;

import java.nio.file.Path;
import java.util.Map;

/**
 * {@code replay}: the {@link Summary} of a recording, summed up as the file is read, exactly as its
 * command printed it: of each run it keeps its settings, outcome, servers and how many events it
 * had, never the events, so a recording of any size is summed up in the memory of one line.
 */
final class Replay implements RecordingSink {

    private final Labs labs;
    private Summary summary;
    private RunHeader header;
    private Map<String, String> backend;
    private long events;

    private Replay(Labs labs) {
        this.labs = labs;
    }

    /** The lab of the run about to begin, as the recording gives it. */
    private Lab next;

    /** The summary of {@code file}'s runs, named by its last run's lab. */
    static Summary of(Labs labs, Path file) throws RecordingException {
        return new RecordingReader(labs).readInto(file, new Replay(labs)).summary;
    }

    @Override
    public void lab(Lab lab) {
        next = lab;
    }

    @Override
    public void run(int number, RunHeader runHeader, Map<String, String> servedBy) {
        Lab lab = next;
        if (summary == null) {
            summary = new Summary(lab);
        }
        summary.lab(lab);
        header = runHeader;
        backend = servedBy;
        events = 0;
    }

    @Override
    public void event(Event event) {
        events++;
    }

    @Override
    public void outcome(Outcome outcome, long droppedEvents) {
        summary.add(header.spec(), outcome, events, backend);
    }

    @Override
    public void end(RecordingEnd end) {
        summary.times(end.elapsedMs(), end.startupMs(), end.interrupted());
        summary.batch(end.planned(), end.serverFailure());
    }
}
