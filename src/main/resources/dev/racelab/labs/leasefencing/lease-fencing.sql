-- The lease-fencing lab: the record that clients holding a Redis lease lock write, one row per
-- run. Each write stores the client's value and the fencing token of the lease it believes it
-- holds; a stale write is one whose token is lower than the token it replaced.

-- name: drop
DROP TABLE IF EXISTS racelab.lease_records;
DROP FUNCTION IF EXISTS racelab.lease_records_note_replaced();

-- name: create
CREATE TABLE racelab.lease_records (
    run_id          text PRIMARY KEY,
    value           bigint NOT NULL DEFAULT 0,
    token           bigint NOT NULL DEFAULT 0,
    -- Set by the trigger on every accepted write: the token of the write this one replaced.
    replaced_token  bigint NOT NULL DEFAULT 0,
    -- Writes PostgreSQL refused as stale (the fenced write only), for the server lane.
    rejected_writes bigint NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION racelab.lease_records_note_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.replaced_token := OLD.token;
    RETURN NEW;
END
$$;
CREATE TRIGGER lease_records_note_replaced BEFORE UPDATE OF token ON racelab.lease_records
    FOR EACH ROW EXECUTE FUNCTION racelab.lease_records_note_replaced();

-- name: seed
INSERT INTO racelab.lease_records (run_id) VALUES (?)

-- name: forget
DELETE FROM racelab.lease_records WHERE run_id = ? OR created_at < now() - interval '1 day'

-- name: write
-- Whatever the token: PostgreSQL takes the word of whoever believes it holds the lock.
UPDATE racelab.lease_records SET value = ?, token = ? WHERE run_id = ? RETURNING replaced_token

-- name: write-if-newer
-- The fenced write: the check and the write in one statement. A token lower than the one that
-- wrote last matches no row, and nothing changes.
UPDATE racelab.lease_records SET value = ?, token = ? WHERE run_id = ? AND token <= ? RETURNING replaced_token

-- name: count-rejection
UPDATE racelab.lease_records SET rejected_writes = rejected_writes + 1 WHERE run_id = ?

-- name: read-record
SELECT value, token, rejected_writes FROM racelab.lease_records WHERE run_id = ?

-- name: observe-record
SELECT token, rejected_writes FROM racelab.lease_records WHERE run_id = ?
