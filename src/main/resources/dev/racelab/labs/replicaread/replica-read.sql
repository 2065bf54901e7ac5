-- The replica-read lab: each client's own row, which it writes on the primary and reads back,
-- on the standby or the primary. Each run owns its clients' rows.

-- name: drop
DROP TABLE IF EXISTS racelab.replica_rows;

-- name: create
CREATE TABLE racelab.replica_rows (
    run_id     text NOT NULL,
    client     int NOT NULL,
    version    bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, client)
);

-- name: seed
INSERT INTO racelab.replica_rows (run_id, client) SELECT ?, n FROM generate_series(1, 64) AS n

-- name: forget
DELETE FROM racelab.replica_rows WHERE run_id = ? OR created_at < now() - interval '1 day'

-- name: write
UPDATE racelab.replica_rows SET version = version + 1 WHERE run_id = ? AND client = ? RETURNING version

-- name: flushed
SELECT pg_current_wal_flush_lsn()::text

-- name: read
SELECT version FROM racelab.replica_rows WHERE run_id = ? AND client = ?

-- name: replayed-past
SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn

-- name: primary-lsn
SELECT pg_current_wal_flush_lsn()::text,
       (SELECT sent_lsn::text FROM pg_stat_replication WHERE application_name = ?)

-- name: sync-state
SELECT sync_state FROM pg_stat_replication WHERE application_name = ?

-- name: standby-lsn
SELECT pg_last_wal_receive_lsn()::text, pg_last_wal_replay_lsn()::text, pg_is_wal_replay_paused()
