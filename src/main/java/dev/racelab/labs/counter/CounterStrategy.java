package dev.racelab.labs.counter;

import dev.racelab.engine.Strategy;

/** How a worker adds one to the counter row. */
enum CounterStrategy implements Strategy {
    READ_MODIFY_WRITE(About.broken("read-modify-write", "Read, then write",
            "SELECT the value, then UPDATE it to value + 1: two clients can read the same value, and the later write wipes out the other's increment")),
    ATOMIC_UPDATE(About.fix("atomic-update", "Atomic UPDATE",
            "UPDATE … SET value = value + 1: PostgreSQL reads and writes under the row lock")),
    SELECT_FOR_UPDATE(About.fix("select-for-update", "SELECT … FOR UPDATE",
            "lock the row when reading it, so nobody else reads it until this transaction commits")),
    SERIALIZABLE_RETRY(About.fix("serializable-retry", "Serializable + retry",
            "read and write in a SERIALIZABLE transaction; PostgreSQL aborts the loser, which retries"));

    private final About about;

    CounterStrategy(About about) {
        this.about = about;
    }

    @Override
    public About about() {
        return about;
    }
}
