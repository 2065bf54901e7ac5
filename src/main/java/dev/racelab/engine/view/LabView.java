package dev.racelab.engine.view;

import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;

import java.util.List;

/**
 * A lab's live state panels and picture, computed from the run's events.
 *
 * <p>The window feeds it every event of the run, in order, on its own thread, once per frame in
 * batches; the view never sees a worker thread or a server. So it needs no locking: it is owned by
 * the thread that calls it. It reads only events, never the servers, and so shows the same thing
 * live and when a recording is replayed.
 */
public interface LabView {

    /** Takes the next event of the run. */
    void accept(Event event);

    /** The panels to show now, top to bottom. */
    List<Panel> panels();

    /** Whether the lab draws a picture above its panels. */
    default boolean hasPicture() {
        return false;
    }

    /** Draws the picture; called only when {@link #version()} changed or the size did. */
    default void draw(Sketch sketch) {
    }

    /**
     * The record's clock now (as events' {@code nanos}), told every frame while the run is live and
     * never for an ended or loaded record: a view showing a wait still going (a hunger) counts it
     * up to this, not only to the latest event, which may be long ago when nobody moves.
     */
    default void live(long nanos) {
    }

    /**
     * The run ended with {@code outcome}: told once, after its last event, by whoever shows an
     * ended record (the exports), so a view can show what the verdict measured where the record
     * holds no observation of it.
     */
    default void concluded(Outcome outcome) {
    }

    /** Changes whenever the panels or the picture would look different; lets the window skip redraws. */
    long version();
}
