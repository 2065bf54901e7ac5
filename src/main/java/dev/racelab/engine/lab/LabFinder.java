package dev.racelab.engine.lab;

/**
 * Where a recording's reader finds the lab each run names: one this RaceLab has, or one the
 * recording itself carries as text (a lab file, a spec), so that a recording of a lab written as
 * a file replays with neither the file nor a server.
 */
public interface LabFinder {

    /** The lab with {@code id}, or null for one this RaceLab does not know. */
    Lab named(String id);

    /**
     * The lab {@code id} read from the text a recording carries ({@link Lab#source()}), checked as
     * the file was when it ran.
     *
     * @throws IllegalArgumentException the text is not a lab this RaceLab can read: the message says why
     */
    default Lab carried(String id, String source) {
        throw new IllegalArgumentException("this reader takes no lab carried in a recording");
    }
}
