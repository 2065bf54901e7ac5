package dev.racelab.engine;

/**
 * Someone who owns a lane on the timeline.
 *
 * @param id   index in the run's actor list; events name their actor by it
 * @param name what students see: {@code client-3}, {@code philosopher-1}, {@code pg_locks}
 * @param kind a worker thread, a view of a server, or the run itself
 */
public record Actor(int id, String name, Kind kind) {

    /** The id of the run's own lane: always the first actor. */
    public static final int RUN_ID = 0;

    public enum Kind {
        /** The run as a whole: start, end, pauses, the verdict. */
        RUN,
        /** One of the lab's worker threads. */
        WORKER,
        /** What a server itself reports, polled by an observer. */
        SERVER
    }
}
