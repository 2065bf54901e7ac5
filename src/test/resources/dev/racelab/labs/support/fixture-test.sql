-- The tables of PgFixtureTest's lab: one row per run, so seeding and forgetting show.

-- name: drop
DROP TABLE IF EXISTS racelab.fixture_test_runs;

-- name: create
CREATE TABLE racelab.fixture_test_runs (
    run_id     text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- name: seed
INSERT INTO racelab.fixture_test_runs (run_id) VALUES (?)

-- name: forget
DELETE FROM racelab.fixture_test_runs WHERE run_id = ? OR created_at < now() - interval '1 day'

-- name: count
SELECT count(*) FROM racelab.fixture_test_runs WHERE run_id = ?
