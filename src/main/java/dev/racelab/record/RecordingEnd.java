package dev.racelab.record;

/**
 * A recording's end line: what the command that made its runs measured as a whole.
 *
 * @param runs          how many runs the file holds
 * @param elapsedMs     how long the runs took together, by the wall clock
 * @param startupMs     how long the servers took to come up before the first run (0 if they were up)
 * @param interrupted   whether a signal cut the command short: its last run was stopped, and the
 *                      recording is complete up to there
 * @param planned       how many runs the command asked for: more than it holds when a signal or a
 *                      server that failed ended the command early
 * @param serverFailure the server that failed and ended the command, in words (never credentials),
 *                      or null
 */
public record RecordingEnd(int runs, long elapsedMs, long startupMs, boolean interrupted, int planned,
                           String serverFailure) {
}
