package dev.racelab.record;

import dev.racelab.engine.RunRecord;
import dev.racelab.engine.lab.Lab;

import java.util.List;

/**
 * What a recording file holds: one or more runs, each a complete {@link RunRecord}, and what the
 * command that made them measured as a whole.
 *
 * @param runs      the runs in the order they ran; never empty
 * @param elapsedMs how long the runs took together, by the wall clock
 * @param startupMs how long the servers took to come up before the first run (0 if they were up)
 * @param interrupted whether a signal cut the command short: its last run was stopped, and the
 *                    recording is complete up to there
 * @param planned   how many runs the command asked for: more than it holds when a signal or a
 *                  server that failed ended the command early
 * @param serverFailure the server that failed and ended the command, in words (never credentials),
 *                  or null
 * @param labs      the lab of each run, as the file gave it (a lab file's from its own text); empty
 *                  for a recording made in memory
 */
public record Recording(List<RunRecord> runs, long elapsedMs, long startupMs, boolean interrupted, int planned,
                        String serverFailure, List<Lab> labs) {

    public Recording {
        runs = List.copyOf(runs);
        labs = List.copyOf(labs);
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("a recording holds at least one run");
        }
        planned = Math.max(planned, runs.size());
    }

    /** A recording of every run its command asked for. */
    public Recording(List<RunRecord> runs, long elapsedMs, long startupMs, boolean interrupted) {
        this(runs, elapsedMs, startupMs, interrupted, runs.size(), null, List.of());
    }

    /** The lab of {@code run}, one of {@link #runs}, as the file gave it; null if not known. */
    public Lab labOf(RunRecord run) {
        int index = runs.indexOf(run);
        return index >= 0 && index < labs.size() ? labs.get(index) : null;
    }

    /** The last run: the one a window shows first, and whose metrics a summary gives. */
    public RunRecord last() {
        return runs.get(runs.size() - 1);
    }
}
