package dev.racelab.engine;

import java.util.List;
import java.util.Map;

/**
 * A run as a self-contained record: its {@link RunHeader}, its {@link EventLog} and, once it has
 * ended, its {@link Outcome}. Everything the window and the command line show of a run is built
 * from a record alone, so a run shows the same live and opened from a file with no server and no
 * live {@link Run}.
 *
 * <p>A live record grows while its run goes: readers take events in order as they come, and find
 * the outcome set before the {@link EventKind#RUN_ENDED} event appears. Thread-safe.
 */
public final class RunRecord {

    private volatile RunHeader header;
    private final EventLog events;
    private volatile Outcome outcome;
    private volatile Map<String, String> backend = Map.of();
    private volatile String serverFailure;

    RunRecord(RunHeader header, EventLog events) {
        this.header = header;
        this.events = events;
    }

    /** A finished run read back from a recording. */
    public static RunRecord loaded(RunHeader header, List<Event> events, long dropped, Outcome outcome,
                                   Map<String, String> backend) {
        return loaded(header, EventLog.of(events, dropped), outcome, backend);
    }

    /** A finished run read back from a recording, its events already in a fixed log. */
    public static RunRecord loaded(RunHeader header, EventLog events, Outcome outcome, Map<String, String> backend) {
        RunRecord record = new RunRecord(header, events);
        record.outcome = outcome;
        record.backend = Map.copyOf(backend);
        return record;
    }

    public RunHeader header() {
        return header;
    }

    public EventLog events() {
        return events;
    }

    /** The outcome, or null while the run has not ended. */
    public Outcome outcome() {
        return outcome;
    }

    /**
     * A scheduled run's passages, noted as it ends: the header's settings then carry the schedule
     * it followed, so that its recording can be run again passage for passage.
     */
    void followed(Schedule schedule) {
        RunHeader was = header;
        this.header = new RunHeader(was.lab(), was.spec().withSchedule(schedule), was.startedAt());
    }

    void conclude(Outcome result) {
        this.outcome = result;
    }

    /** Whether the run has ended. */
    public boolean ended() {
        return outcome != null;
    }

    /** What served each of the run's servers ("postgres" → "PostgreSQL 17.2, embedded"), no credentials. */
    public Map<String, String> backend() {
        return backend;
    }

    /**
     * If the run ended because a server failed it, the sentence naming the server and why; else
     * null. A server fails a run when it stops answering, or when it ends or loses the run's
     * sessions (crashed, restarted, terminated them, or the connection broke), whether or not it
     * answers again afterwards. Known only while the run is live (a recording keeps the sentence in
     * its outcome's explanation).
     */
    public String serverFailure() {
        return serverFailure;
    }

    void serverFailure(String sentence) {
        this.serverFailure = sentence;
    }

    /** Notes what serves the run's servers; the shell that knows sets it when the run starts. */
    public void backend(Map<String, String> described) {
        this.backend = Map.copyOf(described);
    }
}
