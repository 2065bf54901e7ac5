package dev.racelab.ui.model;

import dev.racelab.engine.RunSpec;

/**
 * A class's run, as its host's window drives it: the run is the host's, its workers are the
 * participants', on their machines. Run starts the class's next run with the settings shown, and
 * Pause, Resume, Step and Stop go to every participant.
 */
public interface ClassControls {
    /** Starts the class's next run with {@code spec}'s settings. */
    void start(RunSpec spec);

    void pause();

    void resume();

    /** Releases the participant's worker that lane {@code worker} stands for to its next gate. */
    void step(int worker);

    void stop();
}
