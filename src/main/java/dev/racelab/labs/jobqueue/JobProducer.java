package dev.racelab.labs.jobqueue;

import dev.racelab.backend.PgSessions;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.Survivors;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The first worker: adds each round's jobs at the producer's rate. */
final class JobProducer implements LabWorker {

    private final WorkerContext context;
    private final PgSessions.Session session;
    private final String runId;
    private final int perRound;
    private final long producerPeriodNanos;
    private final JobBook book;
    private final Survivors survivors;
    private long startNanos;

    JobProducer(WorkerContext context, PgSessions.Session session, String runId, int perRound,
                long producerPeriodNanos, JobBook book, Survivors survivors) {
        this.context = context;
        this.session = session;
        this.runId = runId;
        this.perRound = perRound;
        this.producerPeriodNanos = producerPeriodNanos;
        this.book = book;
        this.survivors = survivors;
    }

    @Override
    public void operation(int n) throws Exception {
        if (n == 0) {
            startNanos = context.nanoTime();
            context.state(ActorState.RUNNING, "adding jobs");
        }
        for (int k = 0; k < perRound; k++) {
            int id = n * perRound + k + 1;
            long wait = startNanos + (id - 1) * producerPeriodNanos - context.nanoTime();
            if (wait > 0) {
                context.takeTime(wait);
            }
            try (PgSessions.Lease lease = session.borrow();
                 PreparedStatement ps = lease.connection().prepareStatement(JobQueueScenario.SQL.get("add-job"))) {
                ps.setString(1, runId);
                ps.setInt(2, id);
                ps.setString(3, "reader-" + id + "@example.org");
                ps.setString(4, "Your order #" + id + " has shipped");
                ps.executeUpdate();
            }
            context.mark(EventKind.JOB_ADDED, JobQueueScenario.QUEUE, id);
            book.added.set(id);
        }
    }

    @Override
    public void abort() {
        session.abort();
    }

    @Override
    public void close() throws SQLException {
        survivors.done();
        session.close();
    }
}
