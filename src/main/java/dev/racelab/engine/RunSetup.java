package dev.racelab.engine;

/**
 * What a lab needs to open a scenario.
 *
 * @param runId    short id, unique among runs sharing a server; scopes rows and keys of this run
 * @param strategy the strategy the workers follow: one of the lab's own constants
 * @param workers  number of workers
 * @param ops      operations per worker
 * @param seed     seed for anything random in the lab
 * @param switches the lab's own settings for this run
 * @param threads  where the lab gets any thread it needs (a subscriber, a lease keeper, a pool's
 *                 housekeeper): named, and with a handler that records its failure in the run
 * @param servers  where the lab's fixtures put the servers they use, so the run can ask them
 *                 whether they still answer when its workers stall
 */
public record RunSetup(String runId, Strategy strategy, int workers, int ops, long seed, SwitchValues switches,
                       RunThreads threads, ServerWatch servers) {

    /** The value of the lab's switch {@code sw} in this run. */
    public <T> T get(Switch<T> sw) {
        return switches.get(sw);
    }
}
