-- The advisory-lock lab: workers take a PostgreSQL advisory lock on a resource, do the work the
-- lock protects, and let the lock go. The lock itself lives in PostgreSQL's lock table
-- (pg_locks), not in any table here; these tables hold the run's resources and count the work
-- done on each. Every row carries its run's id, so runs sharing a server never meet.

-- name: drop
DROP TABLE IF EXISTS racelab.advisory_resources;
DROP TABLE IF EXISTS racelab.advisory_runs;

-- name: create
CREATE TABLE racelab.advisory_runs (
    run_id     text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE racelab.advisory_resources (
    run_id      text NOT NULL,
    name        text NOT NULL,
    -- The advisory key the run locks it by, as pg_locks shows it: 1089335628, or (1, 42).
    lock_key    text NOT NULL,
    -- Times the work under the lock was done on it.
    uses        integer NOT NULL DEFAULT 0,
    last_worker text,
    PRIMARY KEY (run_id, name)
);

-- name: seed
INSERT INTO racelab.advisory_runs (run_id) VALUES (?)

-- name: forget
WITH run AS (SELECT CAST(? AS text) AS run_id),
gone AS (
    DELETE FROM racelab.advisory_runs r USING run
    WHERE r.run_id = run.run_id OR r.created_at < now() - interval '1 day'
    RETURNING r.run_id
)
DELETE FROM racelab.advisory_resources s
WHERE s.run_id IN (SELECT run_id FROM gone) OR s.run_id = (SELECT run_id FROM run)

-- name: add-resource
INSERT INTO racelab.advisory_resources (run_id, name, lock_key) VALUES (?, ?, ?)

-- name: work
-- The work the lock protects: it takes its time in the database (a slow statement, holding its
-- connection meanwhile), then counts one use of the resource.
WITH work AS (SELECT pg_sleep(CAST(? AS double precision) / 1000))
UPDATE racelab.advisory_resources SET uses = uses + 1, last_worker = ?
FROM work WHERE run_id = ? AND name = ?

-- name: uses
SELECT coalesce(sum(uses), 0) FROM racelab.advisory_resources WHERE run_id = ?

-- name: try-lock
-- The lock calls, in the one-key form (a bigint key) and the two-key form (two int keys): the
-- session-level ones hold until unlocked or the session ends; the transaction-level ones until
-- the transaction ends. pg_advisory_lock and pg_advisory_xact_lock wait; the try forms answer at
-- once whether they got it.
SELECT pg_try_advisory_lock(?)

-- name: try-lock-2
SELECT pg_try_advisory_lock(?, ?)

-- name: lock
SELECT pg_advisory_lock(?)

-- name: lock-2
SELECT pg_advisory_lock(?, ?)

-- name: try-xact-lock
SELECT pg_try_advisory_xact_lock(?)

-- name: try-xact-lock-2
SELECT pg_try_advisory_xact_lock(?, ?)

-- name: xact-lock
SELECT pg_advisory_xact_lock(?)

-- name: xact-lock-2
SELECT pg_advisory_xact_lock(?, ?)

-- name: unlock
-- True if this session held the lock (once less now), false with a WARNING if it did not.
SELECT pg_advisory_unlock(?)

-- name: unlock-2
SELECT pg_advisory_unlock(?, ?)
