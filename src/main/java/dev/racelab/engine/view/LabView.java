package dev.racelab.engine.view;

import dev.racelab.engine.Event;

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

    /** Changes whenever the panels or the picture would look different; lets the window skip redraws. */
    long version();
}
