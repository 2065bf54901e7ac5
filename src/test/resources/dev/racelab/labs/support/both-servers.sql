-- The tables of BothServersTest's lab: one counter row per run, written by workers holding a Redis mutex.

-- name: drop
DROP TABLE IF EXISTS racelab.both_servers_counters;

-- name: create
CREATE TABLE racelab.both_servers_counters (
    run_id     text PRIMARY KEY,
    value      bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- name: seed
INSERT INTO racelab.both_servers_counters (run_id) VALUES (?)

-- name: forget
DELETE FROM racelab.both_servers_counters WHERE run_id = ? OR created_at < now() - interval '1 day'

-- name: read
SELECT value FROM racelab.both_servers_counters WHERE run_id = ?

-- name: write
UPDATE racelab.both_servers_counters SET value = ? WHERE run_id = ?

-- name: row-xmax
SELECT xmax::text::bigint FROM racelab.both_servers_counters WHERE run_id = ?

-- name: observe
SELECT value FROM racelab.both_servers_counters WHERE run_id = ?
