-- The counter lab's tables and statements. Everything lives in schema racelab; each run owns
-- one row, keyed by its run id.

-- name: drop
DROP TABLE IF EXISTS racelab.counters;
DROP FUNCTION IF EXISTS racelab.counters_note_overwrite();

-- name: create
CREATE TABLE racelab.counters (
    run_id      text PRIMARY KEY,
    value       bigint NOT NULL DEFAULT 0,
    -- Set by the trigger on every write: how many increments this write wiped out. An increment
    -- writes old + 1; a write of anything less replaced increments it never saw.
    overwritten bigint NOT NULL DEFAULT 0,
    -- Set by the trigger: how many writes the row has taken, so a write knows which writes landed
    -- between its read and itself (the ones it overwrote without seeing them).
    writes      bigint NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION racelab.counters_note_overwrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.overwritten := GREATEST(OLD.value + 1 - NEW.value, 0);
    NEW.writes := OLD.writes + 1;
    RETURN NEW;
END
$$;
CREATE TRIGGER counters_note_overwrite BEFORE UPDATE OF value ON racelab.counters
    FOR EACH ROW EXECUTE FUNCTION racelab.counters_note_overwrite();

-- name: seed
INSERT INTO racelab.counters (run_id) VALUES (?)

-- name: forget
DELETE FROM racelab.counters WHERE run_id = ? OR created_at < now() - interval '1 day'

-- name: read
SELECT value, writes FROM racelab.counters WHERE run_id = ?

-- name: read-for-update
SELECT value, writes FROM racelab.counters WHERE run_id = ? FOR UPDATE

-- name: write
UPDATE racelab.counters SET value = ? WHERE run_id = ? RETURNING overwritten, writes

-- name: increment
UPDATE racelab.counters SET value = value + 1 WHERE run_id = ? RETURNING value, overwritten, writes

-- name: observe
SELECT value FROM racelab.counters WHERE run_id = ?

-- name: row-xmax
SELECT xmax::text::bigint FROM racelab.counters WHERE run_id = ?
