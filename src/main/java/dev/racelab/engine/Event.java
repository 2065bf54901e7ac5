package dev.racelab.engine;

/**
 * One thing that happened during a run, as the recorder holds it.
 *
 * @param seq     position in the recording, dense from 0; the order in which events were recorded
 * @param nanos   when it happened, on the run's clock
 * @param actor   the actor it belongs to (see {@link Actor#id()}); its lane on the timeline
 * @param kind    what happened
 * @param subject what it concerns: a gate, a lock, a row, a message; may be null
 * @param value   a number whose meaning the kind gives
 */
public record Event(long seq, long nanos, int actor, EventKind kind, String subject, long value) {

    /** The state this event moved its actor to; only for {@link EventKind#STATE}. */
    public ActorState state() {
        if (kind != EventKind.STATE) {
            throw new IllegalStateException(kind + " is not a state change");
        }
        return ActorState.byOrdinal(value);
    }
}
