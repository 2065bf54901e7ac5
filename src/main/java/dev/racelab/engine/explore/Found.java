package dev.racelab.engine.explore;

import dev.racelab.engine.Schedule;
import dev.racelab.engine.Verdict;

/**
 * One schedule an exploration ran, as it is reported.
 *
 * @param index        its place among the schedules run (0 for the first)
 * @param schedule     the passages it made, in order
 * @param preemptions  passages given to a worker while the one before could have gone on
 * @param verdict      how it ended
 * @param headline     the outcome's headline
 * @param interleaving the passages in words ({@link Interleaving})
 */
public record Found(int index, Schedule schedule, int preemptions, Verdict verdict, String headline,
                    String interleaving) {

    /** Fewer preemptions first, then fewer passages. */
    public boolean simplerThan(Found other) {
        return other == null || preemptions < other.preemptions
                || preemptions == other.preemptions && schedule.size() < other.schedule.size();
    }
}
