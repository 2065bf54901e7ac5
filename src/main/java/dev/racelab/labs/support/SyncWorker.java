package dev.racelab.labs.support;

import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.SyncClient;

/**
 * A worker of a Redis lab: its context and its {@link SyncClient}. Stopping the run aborts the
 * client's waits; the worker's end closes the client (its connections and subscriber thread).
 */
public abstract class SyncWorker implements LabWorker {

    protected final WorkerContext context;
    protected final SyncClient client;

    protected SyncWorker(WorkerContext context, SyncClient client) {
        this.context = context;
        this.client = client;
    }

    @Override
    public void abort() {
        client.abort();
    }

    @Override
    public void close() {
        client.close();
    }
}
