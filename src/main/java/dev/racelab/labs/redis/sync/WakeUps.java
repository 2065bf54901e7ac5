package dev.racelab.labs.redis.sync;

import dev.racelab.backend.Redis;
import dev.racelab.engine.PushedWait;
import dev.racelab.engine.RunThreads;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One client's dedicated subscriber: its own connection, subscribed to the client's wake-up
 * channel for the client's whole life (as the article subscribes in its constructor), and the
 * thread that reads it and sorts each wake-up into the {@link Mailbox} of the construct it names.
 *
 * <p>A wake-up's message is {@code <construct>#<cause>}: which construct it is for, and an
 * opaque number the waker chose (RaceLab passes the sequence number of the release event, so
 * the timeline can draw an arrow from the release to the wake-up it caused).
 *
 * <p>A scheduled run must know that no wake-up is on its way before it takes a waiting client
 * for one that nothing ends: {@link #settle} publishes a probe on the channel and returns once the
 * subscriber read it, so everything published there before it has reached its mailbox.
 *
 * <p>Threads: the subscriber thread ({@code <client>-wake-ups-<run>}, one of the run's {@link
 * RunThreads}, so a failure nobody expected is recorded in the run) owns the connection while it
 * reads; {@link #close} (from the client's thread, or the run's when it ends) closes the socket
 * under it, which ends the thread, and joins it.
 */
final class WakeUps implements AutoCloseable {

    private static final long SUBSCRIBE_TIMEOUT_MILLIS = 5_000;
    private static final long JOIN_MILLIS = 5_000;
    /** How long a probe may take to come back before the subscriber is taken for stuck. */
    private static final long PROBE_MILLIS = 10_000;
    /** The start of a probe's message: no construct's name starts so. */
    private static final String PROBE = "?probe#";

    private final String channel;
    private final Jedis subscriber;
    private final Map<String, Mailbox> mailboxes = new ConcurrentHashMap<>();
    private final CountDownLatch subscribed = new CountDownLatch(1);
    private final PushedWait pushed;
    /** Probes sent and read back; guarded by {@code this}. */
    private long probesSent;
    private long probesRead;
    /** The subscriber thread; set by {@link #open} before anyone else sees this object. */
    private Thread thread;
    private volatile boolean closing;

    private WakeUps(Jedis subscriber, String channel, PushedWait pushed) {
        this.subscriber = subscriber;
        this.channel = channel;
        this.pushed = pushed;
    }

    /**
     * Opens the subscriber, its thread called {@code threadName} from {@code threads}, and returns
     * once the server confirmed the subscription.
     */
    static WakeUps open(Redis redis, String connectionName, String channel, RunThreads threads, String threadName,
                        PushedWait pushed) {
        WakeUps wakeUps = new WakeUps(redis.open(connectionName, 0), channel, pushed);
        wakeUps.thread = threads.start(threadName, wakeUps::listen);
        try {
            if (!wakeUps.subscribed.await(SUBSCRIBE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                wakeUps.close();
                // A reply that does not come in time, as a command's would be: the server is
                // then known to be silent (Redis.lostConnection), and nobody waits on it again.
                throw new JedisConnectionException("Redis at " + redis.address().host() + ":"
                        + redis.address().port() + " did not confirm the subscription to " + channel + " within "
                        + SUBSCRIBE_TIMEOUT_MILLIS / 1000 + " s", new SocketTimeoutException("no confirmation"));
            }
        } catch (InterruptedException e) {
            wakeUps.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while subscribing to " + channel, e);
        }
        return wakeUps;
    }

    /** The message of a wake-up for {@code construct}, carrying {@code cause}. */
    static String message(String construct, long cause) {
        return construct + "#" + cause;
    }

    /** The cause a wake-up's message carries, or {@link SyncEvents#NO_CAUSE}. */
    static long cause(String message) {
        int hash = message == null ? -1 : message.lastIndexOf('#');
        if (hash < 0) {
            return SyncEvents.NO_CAUSE;
        }
        try {
            return Long.parseLong(message.substring(hash + 1));
        } catch (NumberFormatException e) {
            return SyncEvents.NO_CAUSE;
        }
    }

    String channel() {
        return channel;
    }

    /** The mailbox of {@code construct}, made on first use. */
    Mailbox mailbox(String construct) {
        return mailboxes.computeIfAbsent(construct, c -> new Mailbox(pushed));
    }

    /** Every mailbox so far, by construct. */
    Map<String, Mailbox> mailboxes() {
        return mailboxes;
    }

    private void listen() {
        String why = "the subscriber connection closed";
        RuntimeException failure = null;
        try {
            subscriber.subscribe(new JedisPubSub() {
                @Override
                public void onSubscribe(String ignored, int count) {
                    subscribed.countDown();
                }

                @Override
                public void onMessage(String ignored, String message) {
                    if (message.startsWith(PROBE)) {
                        probed(Long.parseLong(message.substring(PROBE.length())));
                        return;
                    }
                    int hash = message.lastIndexOf('#');
                    mailbox(hash < 0 ? message : message.substring(0, hash)).deliver(message);
                }
            }, channel);
        } catch (RuntimeException e) {
            why = "the subscriber connection failed: " + (e.getMessage() == null ? e : e.getMessage());
            failure = e;
        }
        if (!closing) {
            String reason = why;
            Throwable cause = failure;
            mailboxes.values().forEach(m -> m.breakWith(reason, cause));
        }
        synchronized (this) {
            // A probe waited for will not come back now.
            notifyAll();
        }
    }

    /**
     * Returns once every wake-up published on this channel before now has reached its mailbox:
     * publishes a probe with {@code publisher} (not the client's own connection, which its thread
     * owns) and waits for the subscriber to read it, Redis keeping each subscriber's messages in
     * the order they were published. Returns at once once the subscriber is gone (closed, or its
     * connection ended): nothing more reaches it.
     *
     * @throws IllegalStateException if the probe does not come back in time (the subscriber died)
     */
    void settle(Jedis publisher) throws InterruptedException {
        long probe;
        synchronized (this) {
            if (closing || !thread.isAlive()) {
                return;
            }
            probe = ++probesSent;
        }
        if (publisher.publish(channel, PROBE + probe) == 0) {
            // Nobody is subscribed: nothing published before can be on its way to this client.
            return;
        }
        long deadline = System.nanoTime() + PROBE_MILLIS * 1_000_000;
        synchronized (this) {
            while (probesRead < probe && !closing && thread.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("the subscriber of " + channel + " did not read back a probe "
                            + "within " + PROBE_MILLIS / 1000 + " s");
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    private synchronized void probed(long probe) {
        probesRead = Math.max(probesRead, probe);
        notifyAll();
    }

    /** Ends every wait for a wake-up with {@link WakeUpsBroken}; the subscription stays. */
    void breakAll(String reason) {
        mailboxes.values().forEach(m -> m.breakWith(reason, null));
    }

    /** Closes the connection under the subscriber thread and waits for the thread to end. */
    @Override
    public void close() {
        closing = true;
        synchronized (this) {
            notifyAll();
        }
        subscriber.disconnect();
        if (thread != Thread.currentThread()) {
            try {
                thread.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
