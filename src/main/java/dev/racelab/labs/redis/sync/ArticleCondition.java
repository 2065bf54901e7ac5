package dev.racelab.labs.redis.sync;

import java.util.List;

/**
 * The article's condition variable: wait pushes the client's channel on the condition's queue,
 * signal pops the oldest channel and publishes to it (running again when nobody received it),
 * signalAll pops them all. A waiter has no way to leave the queue.
 */
final class ArticleCondition extends QueuedCondition {

    private static final LuaScript WAIT = LuaScript.load(ArticleCondition.class, "lua/article/wait.lua");
    private static final LuaScript SIGNAL = LuaScript.load(ArticleCondition.class, "lua/article/signal.lua");
    private static final LuaScript SIGNAL_ALL = LuaScript.load(ArticleCondition.class, "lua/article/signal-all.lua");

    ArticleCondition(SyncClient client, String name, String queueKey) {
        super(client, name, queueKey);
    }

    @Override
    void join() {
        WAIT.run(client.commands(), queue, List.of(client.space().channel(client.owner())));
    }

    /** The article's waiters cannot leave: the entry stays, and a later signal is spent on it. */
    @Override
    void leave() {
    }

    @Override
    public void signal() {
        List<String> args = List.of(signalMessage());
        while (SIGNAL.runForLong(client.commands(), queue, args) <= 0) {
            client.events().retried(name);
        }
    }

    @Override
    public void signalAll() {
        SIGNAL_ALL.run(client.commands(), queue, List.of(signalMessage()));
    }
}
