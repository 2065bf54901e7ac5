-- The advisory-lock benchmark's own statement: the row lock it sets beside the advisory locks.

-- name: lock-row
-- The invoice's row of the run, locked until the transaction ends, as SELECT … FOR UPDATE does.
SELECT uses FROM racelab.advisory_resources WHERE run_id = ? AND name = ? FOR UPDATE
