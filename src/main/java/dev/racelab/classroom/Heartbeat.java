package dev.racelab.classroom;

import dev.racelab.backend.Redis;
import dev.racelab.tasks.Background;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A machine of a class saying it is still there: its alive key set every {@link
 * ClassChannel#HEARTBEAT_MILLIS} on a connection of its own, so a machine that is killed, frozen or
 * cut off is known to be gone within {@link ClassChannel#ALIVE_MILLIS}. Closing removes the key.
 */
final class Heartbeat implements AutoCloseable {

    private final ClassChannel channel;
    private final String who;
    private final Thread thread;
    private volatile boolean stopped;

    private Heartbeat(ClassChannel channel, String who) {
        this.channel = channel;
        this.who = who;
        this.thread = Background.threads("class-heartbeat").newThread(this::beat);
    }

    static Heartbeat start(Redis redis, ClassCode code, String who) {
        Heartbeat heartbeat = new Heartbeat(new ClassChannel(redis.open("class-heartbeat", 2_000), code), who);
        heartbeat.channel.alive(who);
        heartbeat.thread.start();
        return heartbeat;
    }

    private void beat() {
        while (!stopped) {
            try {
                channel.alive(who);
            } catch (JedisException e) {
                // The server is out of reach: those waiting on this machine will see it gone.
            }
            try {
                Thread.sleep(ClassChannel.HEARTBEAT_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(2_000);
            channel.gone(who);
        } catch (InterruptedException | JedisException e) {
            // Its key expires within seconds.
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        } finally {
            channel.close();
        }
    }
}
