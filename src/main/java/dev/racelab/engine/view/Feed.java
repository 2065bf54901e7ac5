package dev.racelab.engine.view;

import dev.racelab.engine.Event;
import dev.racelab.engine.EventLog;

import java.util.List;
import java.util.function.Consumer;

/**
 * The one way a shown record's events travel to what shows them: the feed owns the cursor into the
 * record's log and, once a frame, hands the next events, in order, to each follower in turn (the
 * timeline's model first, then the lab's view and the tracker); no follower reads the log or hands
 * events on. A frame takes at most {@link #PER_FRAME} events, at a run's end too: a run that ends
 * with a million events not yet shown catches up over a few frames, never in one that holds the
 * window still.
 *
 * <p>Owned by the thread that draws.
 */
public final class Feed {

    /** The most events a frame hands on; the rest wait for the next. */
    public static final int PER_FRAME = 250_000;

    private final EventLog log;
    private final List<Consumer<Event>> followers;
    private long cursor;

    @SafeVarargs
    public Feed(EventLog log, Consumer<Event>... followers) {
        this.log = log;
        this.followers = List.of(followers);
    }

    /** Hands the next events, at most {@link #PER_FRAME}, to every follower; returns how many. */
    public int frame() {
        return frame(PER_FRAME);
    }

    /** Hands the next events, at most {@code max} (and {@link #PER_FRAME}), to every follower; returns how many. */
    public int frame(int max) {
        long before = cursor;
        cursor = log.drain(cursor, Math.min(max, PER_FRAME), this::handOn);
        return (int) (cursor - before);
    }

    /** Hands on every event the log holds now, a frame's batch at a time (a record read whole: a test, a benchmark). */
    public void catchUp() {
        while (frame() > 0) {
            // The next batch.
        }
    }

    private void handOn(Event event) {
        for (Consumer<Event> follower : followers) {
            follower.accept(event);
        }
    }

    /** Whether the log holds events not yet handed on. */
    public boolean behind() {
        return log.get(cursor) != null;
    }
}
