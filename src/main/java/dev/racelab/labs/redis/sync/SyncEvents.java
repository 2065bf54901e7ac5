package dev.racelab.labs.redis.sync;

/**
 * What a client's constructs report as they go, for whoever records it (a lab marks events on
 * the worker's lane). Every method is called on the client's own thread, never on the subscriber
 * or lease-keeper thread, so an implementation may use that thread's recorder freely.
 */
public interface SyncEvents {

    /** No cause known: the permit was free, or a waiter found its grant by looking. */
    long NO_CAUSE = -1;

    /** Reports nothing. */
    SyncEvents NONE = new SyncEvents() {
    };

    /** The client asks for {@code construct}. */
    default void requested(String construct) {
    }

    /**
     * The client holds {@code construct} now.
     *
     * @param waited whether it had to wait in the queue
     * @param cause  what the waker passed in its wake-up ({@link #released}'s answer), or {@link #NO_CAUSE}
     */
    default void acquired(String construct, boolean waited, long cause) {
    }

    /**
     * The client is about to release {@code construct}.
     *
     * @return a number to send along with the wake-up this causes, or {@link #NO_CAUSE}
     */
    default long released(String construct) {
        return NO_CAUSE;
    }

    /**
     * The client is about to signal {@code condition} (one waiter or all).
     *
     * @return a number to send along with the wake-up, or {@link #NO_CAUSE}
     */
    default long signalling(String condition) {
        return NO_CAUSE;
    }

    /** A signal on {@code condition} woke the client; {@code cause} is what the signaller sent. */
    default void signalled(String condition, long cause) {
    }

    /** The client stopped waiting for {@code construct} without getting it. */
    default void stoppedWaiting(String construct) {
    }

    /** The article's release found its wake-up reached nobody (PUBLISH said 0) and ran again. */
    default void retried(String construct) {
    }

    /** A hardened script took back {@code count} leases that had run out. */
    default void reclaimed(String construct, long count) {
    }

    /** A hardened release was refused: the client no longer held a permit of {@code construct}. */
    default void refused(String construct) {
    }

    /**
     * {@code count} wake-ups for {@code construct} reached this client while it was not waiting
     * for them. In the article's design each one carried a permit, now lost.
     */
    default void unread(String construct, int count) {
    }
}
