package dev.racelab.labs.redis.sync;

import java.util.List;

/**
 * A condition variable whose signals are not wasted: a waiter whose wait times out leaves the
 * queue, and a signal skips waiters that can no longer hear it. A signal can still reach a
 * waiter that froze; callers therefore wait in slices and re-check their condition after each
 * (see {@link Monitor}), so a signal lost that way costs one slice, not the waiter's life.
 */
final class HardenedCondition extends QueuedCondition {

    private static final LuaScript WAIT = LuaScript.load(HardenedCondition.class, "lua/hardened/condition-wait.lua");
    private static final LuaScript LEAVE = LuaScript.load(HardenedCondition.class, "lua/hardened/condition-leave.lua");
    private static final LuaScript SIGNAL = LuaScript.load(HardenedCondition.class, "lua/hardened/condition-signal.lua");
    private static final LuaScript SIGNAL_ALL = LuaScript.load(HardenedCondition.class,
            "lua/hardened/condition-signal-all.lua");

    HardenedCondition(SyncClient client, String name, String queueKey) {
        super(client, name, queueKey);
    }

    @Override
    void join() {
        WAIT.run(client.commands(), queue, List.of(client.owner()));
    }

    @Override
    void leave() {
        LEAVE.run(client.commands(), queue, List.of(client.owner()));
    }

    @Override
    public void signal() {
        SIGNAL.run(client.commands(), queue, List.of(client.space().channelPrefix(), signalMessage()));
    }

    @Override
    public void signalAll() {
        SIGNAL_ALL.run(client.commands(), queue, List.of(client.space().channelPrefix(), signalMessage()));
    }
}
