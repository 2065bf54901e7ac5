-- The redis-failover lab: the record a Redis lock guards, and the fencing tokens PostgreSQL hands
-- out (pg-fence). Each run owns one record and one token row.

-- name: drop
DROP TABLE IF EXISTS racelab.failover_records;
DROP TABLE IF EXISTS racelab.failover_tokens;

-- name: create
CREATE TABLE racelab.failover_records (
    run_id     text PRIMARY KEY,
    holder     text NOT NULL DEFAULT '',
    token      bigint NOT NULL DEFAULT 0,
    writes     int NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE racelab.failover_tokens (
    run_id     text PRIMARY KEY,
    token      bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- name: seed
WITH record AS (INSERT INTO racelab.failover_records (run_id) VALUES (?) RETURNING run_id)
INSERT INTO racelab.failover_tokens (run_id) SELECT run_id FROM record

-- name: forget
WITH gone AS (
    DELETE FROM racelab.failover_records WHERE run_id = ? OR created_at < now() - interval '1 day' RETURNING run_id
)
DELETE FROM racelab.failover_tokens WHERE run_id IN (SELECT run_id FROM gone)

-- name: next-token
UPDATE racelab.failover_tokens SET token = token + 1 WHERE run_id = ? RETURNING token

-- name: write
WITH before AS (SELECT holder FROM racelab.failover_records WHERE run_id = ? FOR UPDATE)
UPDATE racelab.failover_records r SET holder = ?, token = ?, writes = writes + 1 FROM before
WHERE r.run_id = ? RETURNING before.holder

-- name: write-fenced
WITH before AS (SELECT holder FROM racelab.failover_records WHERE run_id = ? FOR UPDATE)
UPDATE racelab.failover_records r SET holder = ?, token = ?, writes = writes + 1 FROM before
WHERE r.run_id = ? AND r.token < ? RETURNING before.holder

-- name: read-record
SELECT holder, token, writes FROM racelab.failover_records WHERE run_id = ?
