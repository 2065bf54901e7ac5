package dev.racelab.labs.support;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Service;

import java.util.Set;

/**
 * What the Redis labs share: they need Redis and nothing else, and each worker costs two
 * connections (commands and a subscriber) and a subscriber thread, which caps them at 64.
 */
public abstract class RedisLab implements Lab {

    protected final Backends backends;

    protected RedisLab(Backends backends) {
        this.backends = backends;
    }

    @Override
    public final Set<Service> services() {
        return Set.of(Service.REDIS);
    }

    @Override
    public int maxWorkers() {
        return 64;
    }
}
