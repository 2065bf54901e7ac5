package dev.racelab.labs.redis.sync;

import dev.racelab.engine.PushedWait;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where one client's wake-ups for one construct land, and where the client waits for them.
 *
 * <p>A client <em>arms</em> the mailbox before it runs the script that may queue it (as the
 * article registers its callback before its {@code EVAL}), so a wake-up published the instant it
 * is queued is not missed. A wake-up that arrives while the mailbox is armed is kept until the
 * client takes it. One that arrives while nobody waits here is <em>unread</em>: in the article's
 * design its permit went with it. A client that stopped acting (vanished) never takes what
 * arrives: it stays {@linkplain #pending() pending}.
 *
 * <p>In a scheduled run the client waits as its worker's {@link PushedWait}: a place the schedule
 * sees, which a wake-up ends, or the schedule letting the wait's time pass.
 *
 * <p>Threads: the client's subscriber thread delivers; the client's own thread arms, waits and
 * disarms; any thread may {@linkplain #breakWith break} it. Everything is guarded by {@code lock}.
 */
final class Mailbox {

    private final PushedWait pushed;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<String> kept = new ArrayDeque<>();
    private boolean armed;
    private int unread;
    private String broken;
    /** What broke the subscriber, when the server did: a waiter's failure carries it, so it is the server's. */
    private Throwable brokenBy;

    Mailbox(PushedWait pushed) {
        this.pushed = pushed;
    }

    /** The client is about to wait here: keep what arrives from now on. */
    void arm() {
        lock.lock();
        try {
            armed = true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for a wake-up for at most {@code nanos} of real time, or in a scheduled run until the
     * schedule lets them pass.
     *
     * @return the wake-up's message, or null when the time ran out
     * @throws WakeUpsBroken when no wake-up can come any more (the subscriber died or the run stopped)
     */
    String await(long nanos) throws InterruptedException {
        long left = nanos;
        boolean free = false;
        while (true) {
            lock.lock();
            try {
                while (free && kept.isEmpty() && broken == null && left > 0) {
                    left = arrived.awaitNanos(left);
                }
                if (!kept.isEmpty()) {
                    return kept.poll();
                }
                if (broken != null) {
                    throw new WakeUpsBroken(broken, brokenBy);
                }
                if (left <= 0) {
                    return null;
                }
            } finally {
                lock.unlock();
            }
            switch (pushed.await(left)) {
                case ARRIVED -> {
                    // Look again.
                }
                case TIME_PASSED -> left = 0;
                case FREE -> free = true;
            }
        }
    }

    /**
     * The client stops waiting here. Wake-ups that arrived and were not taken are dropped and
     * counted as unread.
     *
     * @return how many wake-ups were dropped
     */
    int disarm() {
        lock.lock();
        try {
            armed = false;
            int dropped = kept.size();
            kept.clear();
            unread += dropped;
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /** Called by the subscriber thread for each wake-up. */
    void deliver(String message) {
        lock.lock();
        try {
            if (armed) {
                kept.add(message);
                arrived.signalAll();
                pushed.arrived();
            } else {
                unread++;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Unread wake-ups since the last call. */
    int takeUnread() {
        lock.lock();
        try {
            int n = unread;
            unread = 0;
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Wake-ups that arrived while armed and have not been taken. */
    int pending() {
        lock.lock();
        try {
            return kept.size();
        } finally {
            lock.unlock();
        }
    }

    /** Ends every wait here, now and later, with {@link WakeUpsBroken}. */
    void breakWith(String reason, Throwable cause) {
        lock.lock();
        try {
            if (broken == null) {
                broken = reason;
                brokenBy = cause;
            }
            arrived.signalAll();
            pushed.arrived();
        } finally {
            lock.unlock();
        }
    }
}
