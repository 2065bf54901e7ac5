package dev.racelab.labs.redis.sync;

import java.util.List;

/**
 * What both kinds of semaphore do the same way: the first half of P arms the client's mailbox
 * before the script runs (so a wake-up sent the instant the client is queued is not missed),
 * runs the script that takes a permit or queues the client, and reports the outcome. The script,
 * the waiting and the releasing are what the article and the hardened version do differently.
 */
abstract class QueuedSemaphore implements Semaphore {

    final SyncClient client;
    final String name;
    final List<String> keys;
    final Mailbox mailbox;

    QueuedSemaphore(SyncClient client, String name, List<String> keys) {
        this.client = client;
        this.name = name;
        this.keys = keys;
        this.mailbox = client.mailbox(name);
    }

    /** Runs the script that takes a free permit or queues the client; returns whether it took one. */
    abstract boolean takeOrQueue();

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean acquireOrEnqueue() {
        client.reportUnread();
        client.events().requested(name);
        mailbox.arm();
        if (takeOrQueue()) {
            mailbox.disarm();
            client.events().acquired(name, false, SyncEvents.NO_CAUSE);
            return true;
        }
        return false;
    }

    /** The client holds the permit a wake-up ({@code message}, or null when it found it by looking) brought. */
    final boolean woken(String message) {
        mailbox.disarm();
        client.events().acquired(name, true, WakeUps.cause(message));
        return true;
    }
}
