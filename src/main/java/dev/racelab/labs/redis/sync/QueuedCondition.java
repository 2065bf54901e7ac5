package dev.racelab.labs.redis.sync;

import java.time.Duration;
import java.util.List;

/**
 * What both kinds of condition variable do the same way: a wait arms the client's mailbox, joins
 * the condition's queue while the client still holds the monitor's mutex, releases the mutex,
 * and waits for a signal. How a client joins and leaves the queue, and how a signal picks whom
 * to wake, is what the article and the hardened version do differently.
 */
abstract class QueuedCondition implements Condition {

    final SyncClient client;
    final String name;
    final List<String> queue;
    private final Mailbox mailbox;

    QueuedCondition(SyncClient client, String name, String queueKey) {
        this.client = client;
        this.name = name;
        this.queue = List.of(queueKey);
        this.mailbox = client.mailbox(name);
    }

    /** Puts the client in the queue. */
    abstract void join();

    /** Takes the client out of the queue after its wait timed out, if the design can. */
    abstract void leave();

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean await(Semaphore mutex, Duration patience) throws InterruptedException {
        client.reportUnread();
        mailbox.arm();
        join();
        mutex.release();
        String message = mailbox.await(patience.toNanos());
        if (message == null) {
            leave();
        }
        mailbox.disarm();
        if (message != null) {
            client.events().signalled(name, WakeUps.cause(message));
        }
        return message != null;
    }

    /** The message of a signal sent now. */
    final String signalMessage() {
        return WakeUps.message(name, client.events().signalling(name));
    }
}
