package dev.racelab.labs.support;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgClients;
import dev.racelab.backend.PgSchema;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * What every PostgreSQL lab's run does the same way: install the lab's tables in {@code
 * racelab}, seed this run's rows (keyed by the run's id, so runs sharing a server never meet),
 * give each worker its session, translate failures into sentences, and on close delete the run's
 * rows and make sure none of its sessions outlive it.
 *
 * <p>The lab's SQL file provides {@code create}/{@code drop} (see {@link PgSchema}), {@code seed}
 * (one parameter: the run id) and {@code forget} (one parameter: the run id; also clears rows
 * older than a day that a killed RaceLab left behind).
 */
public abstract class PostgresScenario implements Scenario {

    protected final Postgres postgres;
    protected final SqlFile sql;
    protected final RunSetup setup;
    protected final PgClients clients;
    /** The run's own session for seeding, judging and observing; used by the supervisor thread only. */
    protected final Connection admin;

    protected PostgresScenario(Postgres postgres, SqlFile sql, String component, int schemaVersion, RunSetup setup)
            throws SQLException {
        this.postgres = postgres;
        this.sql = sql;
        this.setup = setup;
        this.admin = postgres.connect("setup");
        try {
            PgSchema.ensure(admin, component, schemaVersion, sql);
            runWithId("forget");
            runWithId("seed");
        } catch (SQLException e) {
            admin.close();
            throw e;
        }
        this.clients = new PgClients(postgres, setup.runId(), setup.workers());
    }

    /** Runs the named statement, whose only parameter is the run id. */
    protected final void runWithId(String statement) throws SQLException {
        try (PreparedStatement ps = admin.prepareStatement(sql.get(statement))) {
            ps.setString(1, setup.runId());
            ps.execute();
        }
    }

    @Override
    public String explain(Throwable failure) {
        if (failure instanceof SQLException e) {
            return postgres.explain(e);
        }
        if (failure instanceof BackendException e) {
            return e.getMessage();
        }
        return Scenario.super.explain(failure);
    }

    @Override
    public void close() throws Exception {
        try (admin) {
            clients.close();
            if (!admin.isClosed()) {
                runWithId("forget");
            }
        }
    }
}
