package dev.racelab.engine;

import java.util.Collection;
import java.util.Set;

/**
 * Which workers are waiting on a server: a lock wait in PostgreSQL, a blocking call in Redis. A
 * scheduled run asks after releasing a worker, so that a worker the server holds back is not
 * taken for one still on its way to its next gate. Asked of the server, never guessed from time.
 */
@FunctionalInterface
public interface ServerWaits {

    /** Nobody ever waits on this server. */
    ServerWaits NONE = workers -> Set.of();

    /** Of {@code workers} (by name), those the server holds waiting now. */
    Set<String> waiting(Collection<String> workers) throws Exception;
}
