package dev.racelab.labs.support;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Service;

import java.util.Set;

/**
 * What the Redis labs share: they need Redis and nothing else, and each worker costs two
 * connections (commands and a subscriber) and a subscriber thread, which caps them at
 * {@link #MOST_WORKERS}.
 */
public abstract class RedisLab extends ProfiledLab {

    public static final Set<Service> SERVICES = Set.of(Service.REDIS);
    public static final int MOST_WORKERS = 64;

    protected RedisLab(Backends backends, LabProfile profile) {
        super(backends, profile);
        if (!profile.services().equals(SERVICES) || profile.crew().most() > MOST_WORKERS) {
            throw new IllegalArgumentException(profile.id() + ": a Redis lab uses Redis only, with at most "
                    + MOST_WORKERS + " workers");
        }
    }
}
