-- The job-queue benchmark's own statements, beside the lab's (labs/jobqueue/jobqueue.sql), on the
-- lab's tables in racelab.

-- name: fill
-- A queue of jobs at once: the benchmark times draining it, not filling it.
INSERT INTO racelab.email_jobs (run_id, id, email_to, subject)
SELECT CAST(? AS text), g, 'reader-' || g || '@example.org', 'Your order #' || g || ' has shipped'
FROM generate_series(1, ?) g

-- name: claim-blocking
-- The baseline, the first comment under the source article: lock the oldest unsent jobs with
-- FOR UPDATE and keep the lock while sending, until the mark commits. Others wait behind it.
SELECT id FROM racelab.email_jobs WHERE run_id = ? AND sent_at IS NULL ORDER BY id LIMIT ? FOR UPDATE

-- name: outbox
-- Emails sent, and jobs they were for.
SELECT count(*), count(DISTINCT job_id) FROM racelab.sent_emails WHERE run_id = ?

-- name: waits
-- What the consumers' sessions (RaceLab's, named racelab:bench-consumer-N, and pgbench's) are
-- doing now: each active one's statement and what it waits for (none: running).
SELECT query, coalesce(wait_event_type || ':' || wait_event, 'running') FROM pg_stat_activity
WHERE state = 'active' AND pid <> pg_backend_pid()
  AND (application_name = 'pgbench' OR application_name LIKE 'racelab:bench-consumer-%')
