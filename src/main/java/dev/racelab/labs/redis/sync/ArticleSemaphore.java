package dev.racelab.labs.redis.sync;

import java.time.Duration;
import java.util.List;

/**
 * The article's semaphore and mutex, as it wrote them: a counter checked and decremented in one
 * script, the waiters' wake-up channels in a Redis list, and V popping the oldest channel and
 * publishing to it. When PUBLISH reports that nobody received the wake-up, the release runs again
 * (the article's {@code exit()} retry), which hands the permit to the next waiter or the counter.
 *
 * <p>What it gets wrong, and RaceLab shows: the retry only helps when the waiter's connection is
 * gone. A waiter that is still subscribed but will never act (it gave up waiting, or its process
 * froze) counts as a receiver, so its permit is lost. Nothing records who holds a permit, so a
 * holder that dies takes its permit with it, and anyone may release, any number of times.
 */
final class ArticleSemaphore extends QueuedSemaphore {

    private static final LuaScript ACQUIRE = LuaScript.load(ArticleSemaphore.class, "lua/article/acquire.lua");
    private static final LuaScript V = LuaScript.load(ArticleSemaphore.class, "lua/article/v.lua");
    private static final LuaScript MUTEX_RELEASE = LuaScript.load(ArticleSemaphore.class, "lua/article/release.lua");

    private final LuaScript releaseScript;

    ArticleSemaphore(SyncClient client, String name, List<String> keys, boolean mutex) {
        super(client, name, keys);
        this.releaseScript = mutex ? MUTEX_RELEASE : V;
    }

    /** The queue holds the client's wake-up channel. */
    @Override
    boolean takeOrQueue() {
        String channel = client.space().channel(client.owner());
        return ACQUIRE.runForLong(client.commands(), keys, List.of(channel)) > 0;
    }

    /** A wake-up is the permit: whoever receives it holds it. */
    @Override
    public boolean awaitTurn(Duration patience) throws InterruptedException {
        String message = mailbox.await(patience.toNanos());
        return message != null && woken(message);
    }

    /** The article cannot leave its queue: the entry stays, and the client merely stops listening. */
    @Override
    public void stopWaiting() {
        mailbox.disarm();
        client.events().stoppedWaiting(name);
    }

    @Override
    public boolean release() {
        List<String> args = List.of(WakeUps.message(name, client.events().released(name)));
        while (releaseScript.runForLong(client.commands(), keys, args) <= 0) {
            client.events().retried(name);
        }
        return true;
    }
}
