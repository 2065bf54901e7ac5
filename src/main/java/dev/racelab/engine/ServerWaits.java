package dev.racelab.engine;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Which workers are waiting on a server: a lock wait in PostgreSQL, a blocking call in Redis. A
 * scheduled run asks after releasing a worker, so that a worker the server holds back is not
 * taken for one still on its way to its next gate. Asked of the server, never guessed from time.
 *
 * <p>Workers waiting for what a server pushes to them ({@link PushedWait}) say so themselves; the
 * servers are asked only whether such a message is still on its way, whether time passing would
 * change anything for them, and to let it pass when the schedule says so.
 */
@FunctionalInterface
public interface ServerWaits {

    /** Nobody ever waits on this server. */
    ServerWaits NONE = workers -> Set.of();

    /** Of {@code workers} (by name), those the server holds waiting now. */
    Set<String> waiting(Collection<String> workers) throws Exception;

    /**
     * Returns once everything the servers pushed to {@code workers} (by name) before now has
     * reached them: a message on its way is not yet a wait that nothing ends.
     */
    default void settlePushed(Collection<String> workers) throws Exception {
    }

    /**
     * Whether letting time pass would change what the servers hold for workers waiting for what
     * they push (a lease nobody renews any more would run out): if not, only a message ends
     * their waits, and the schedule does not offer time as a step for them.
     */
    default boolean timeMatters() throws Exception {
        return false;
    }

    /** The schedule lets time pass: what would run out on the servers meanwhile (a lease nobody renews) runs out now. */
    default void letTimePass() throws Exception {
    }

    /** What {@code fixtures}' servers say, together ({@link Scenario#serverWaits}). */
    static ServerWaits of(Collection<? extends Fixture> fixtures) {
        return new ServerWaits() {
            @Override
            public Set<String> waiting(Collection<String> workers) throws Exception {
                Set<String> all = new HashSet<>();
                for (Fixture fixture : fixtures) {
                    all.addAll(fixture.waits().waiting(workers));
                }
                return all;
            }

            @Override
            public void settlePushed(Collection<String> workers) throws Exception {
                for (Fixture fixture : fixtures) {
                    fixture.waits().settlePushed(workers);
                }
            }

            @Override
            public boolean timeMatters() throws Exception {
                for (Fixture fixture : fixtures) {
                    if (fixture.waits().timeMatters()) {
                        return true;
                    }
                }
                return false;
            }

            @Override
            public void letTimePass() throws Exception {
                for (Fixture fixture : fixtures) {
                    fixture.waits().letTimePass();
                }
            }
        };
    }
}
