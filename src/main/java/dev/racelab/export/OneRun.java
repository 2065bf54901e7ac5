package dev.racelab.export;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingSink;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One run of a recording, its events handed one by one to what draws it as the file is read
 * through; the run's header and outcome kept for the picture's title.
 */
final class OneRun implements RecordingSink {

    private final int number;
    private final Function<RunHeader, Consumer<Event>> drawer;
    private Consumer<Event> events;
    private RunHeader header;
    private Outcome outcome;

    private OneRun(int number, Function<RunHeader, Consumer<Event>> drawer) {
        this.number = number;
        this.drawer = drawer;
    }

    /** Reads run {@code number} (1, 2, …) of {@code file} into what {@code drawer} makes of its header. */
    static OneRun read(RecordingReader reader, Path file, int number, Function<RunHeader, Consumer<Event>> drawer)
            throws RecordingException {
        try {
            return reader.readInto(file, new OneRun(number, drawer));
        } catch (Unfit e) {
            // A file the reader takes may still hold what no run of its lab ever recorded (a null
            // where the lab always writes a name): refused as damaged, not a stack trace.
            throw new RecordingException(file + " is damaged: event " + e.seq
                    + " is not one a run of its lab records");
        }
    }

    /** What drawing an event found that the lab never records. */
    private static final class Unfit extends RuntimeException {
        final long seq;

        Unfit(long seq, RuntimeException cause) {
            super(cause);
            this.seq = seq;
        }
    }

    @Override
    public void run(int runNumber, RunHeader runHeader, Map<String, String> backend) {
        if (runNumber == number) {
            header = runHeader;
            events = drawer.apply(runHeader);
        }
    }

    @Override
    public void event(Event event) {
        if (events != null) {
            try {
                events.accept(event);
            } catch (RuntimeException e) {
                throw new Unfit(event.seq(), e);
            }
        }
    }

    @Override
    public void outcome(Outcome runOutcome, long droppedEvents) {
        if (events != null) {
            outcome = runOutcome;
            events = null;
        }
    }

    RunHeader header() {
        return header;
    }

    Outcome outcome() {
        return outcome;
    }
}
