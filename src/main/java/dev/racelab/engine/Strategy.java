package dev.racelab.engine;

/**
 * One way a lab's workers can do their job.
 *
 * @param id      what the command line calls it: {@code read-modify-write}
 * @param title   a short name for the strategy switch
 * @param summary one line on what it does and why it is or is not safe
 * @param broken  whether this is a strategy that races (the lab's default is its first broken one)
 */
public record Strategy(String id, String title, String summary, boolean broken) {
}
