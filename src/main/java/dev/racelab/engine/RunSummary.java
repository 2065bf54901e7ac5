package dev.racelab.engine;

import java.time.Duration;

/**
 * What the engine knows about a finished (or stalled) run when it asks the oracle.
 *
 * @param workers        how many workers ran
 * @param opsPlanned     operations each worker was to perform
 * @param opsCompleted   operations finished, summed over workers
 * @param elapsedNanos   from the start of the first worker until all ended (or until now)
 * @param stoppedByUser  whether the user stopped the run early
 * @param timedOut       whether the run stalled past its timeout
 * @param recorder       the run's event log
 * @param timeout        the run's timeout: how long it, or one worker's wait, may go without progress
 */
public record RunSummary(int workers, int opsPlanned, long opsCompleted, long elapsedNanos,
                         boolean stoppedByUser, boolean timedOut, Recorder recorder, Duration timeout) {

    /** Completed operations per second of elapsed time. */
    public double opsPerSecond() {
        return elapsedNanos <= 0 ? 0 : opsCompleted * 1e9 / elapsedNanos;
    }
}
