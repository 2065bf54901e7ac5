package dev.racelab.engine;

/**
 * What a lab needs to open a scenario.
 *
 * @param runId    short id, unique among runs sharing a server; scopes rows and keys of this run
 * @param strategy the strategy the workers follow
 * @param workers  number of workers
 * @param ops      operations per worker
 * @param seed     seed for anything random in the lab
 */
public record RunSetup(String runId, Strategy strategy, int workers, int ops, long seed) {
}
