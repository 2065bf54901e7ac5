package dev.racelab.engine;

/**
 * What an {@link Event} says happened.
 *
 * <p>Kinds marked <em>kept</em> are never dropped when the recorder is full: the verdict and
 * every violation must reach the summary even after a million ordinary events.
 */
public enum EventKind {
    /** The run began; {@code value} is the number of workers. */
    RUN_STARTED(true),
    /** The run was paused or resumed by the user ({@code value} 1 paused, 0 resumed). */
    RUN_PAUSED(true),
    /** The run ended; {@code subject} is the verdict's name. */
    RUN_ENDED(true),
    /** An actor changed state; {@code value} is the {@link ActorState} ordinal, {@code subject} what it concerns. */
    STATE(false),
    /** A worker began operation {@code value}. */
    OP_BEGIN(false),
    /** A worker finished operation {@code value}. */
    OP_END(false),
    /** A worker read {@code value} from {@code subject}. */
    READ(false),
    /** A worker wrote {@code value} to {@code subject}. */
    WRITE(false),
    /** A fencing token {@code value} was issued to the worker. */
    TOKEN(false),
    /** A write carrying token {@code value} was accepted. */
    WRITE_ACCEPTED(false),
    /** A write carrying token {@code value} was rejected as stale. */
    WRITE_REJECTED(false),
    /** A worker requested lock {@code subject}. */
    LOCK_REQUESTED(false),
    /** A worker was granted lock {@code subject}. */
    LOCK_ACQUIRED(false),
    /** A worker released lock {@code subject}. */
    LOCK_RELEASED(false),
    /** A worker was woken; {@code value} is the sequence number of the event that woke it, or -1. */
    WOKEN(false),
    /** A transaction was retried; {@code subject} says why. */
    RETRY(false),
    /** A connection was opened for the worker; {@code value} is the server's backend pid. */
    CONNECTED(false),
    /** An invariant was broken here; {@code subject} names it, {@code value} says how much. */
    VIOLATION(true),
    /** Something failed; {@code subject} is the message. */
    ERROR(true),
    /**
     * A server lane: the server reports that worker {@code value} (an actor id) now holds
     * {@code subject}; a null subject means it holds nothing any more.
     */
    SERVER_HOLDS(false),
    /**
     * A server lane: the server reports that worker {@code value} (an actor id) now waits, for
     * what {@code subject} says ("for client-1: row lock"); a null subject means it waits no more.
     */
    SERVER_WAITS(false),
    /** A server lane: the server's own value of {@code subject} is {@code value}. */
    SERVER_VALUE(false),
    /** A note for the timeline's hover text. */
    NOTE(false);

    private final boolean kept;

    EventKind(boolean kept) {
        this.kept = kept;
    }

    /** Whether the recorder keeps this kind even when it is full. */
    public boolean kept() {
        return kept;
    }
}
