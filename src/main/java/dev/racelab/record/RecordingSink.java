package dev.racelab.record;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.lab.Lab;

import java.io.IOException;
import java.util.Map;

/**
 * What a recording holds, handed over in the file's order as {@link RecordingReader#read(java.nio.file.Path,
 * RecordingSink)} reads it, one line at a time: so a summary or an export of a recording of any
 * size keeps only what it needs. The reader checks each line as it comes and the whole at the
 * end; a file found wrong part-way is refused after some of it was handed over, so a sink keeps
 * nothing it could not drop until {@link #end}.
 */
public interface RecordingSink {

    /**
     * The lab the next run is of, just before {@link #run}: the one the recording names, or the
     * lab written as a file that it carries (its text read and checked), which no registry holds.
     */
    default void lab(Lab lab) throws IOException {
    }

    /** Run {@code number} (1, 2, …) begins: what it was, and what served it. */
    default void run(int number, RunHeader header, Map<String, String> backend) throws IOException {
    }

    /** The run's next event, in sequence order from 0, on a lane announced before it. */
    default void event(Event event) throws IOException {
    }

    /** The run's events are all handed over: how it ended, and how many ordinary events its recorder dropped. */
    default void outcome(Outcome outcome, long droppedEvents) throws IOException {
    }

    /** The end line: the file is whole. */
    default void end(RecordingEnd end) throws IOException {
    }
}
