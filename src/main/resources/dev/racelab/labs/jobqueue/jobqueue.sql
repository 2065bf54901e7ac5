-- The job-queue lab: a producer adds email jobs to a table, consumers claim them, "send" them and
-- mark them sent. Everything lives in schema racelab; every row carries its run's id, so runs
-- sharing a server never see each other's jobs.
--
-- Sending is recorded in racelab.sent_emails, the outbox a mail relay ships from. It has no
-- uniqueness on purpose: an email sent twice is a second row, not an error. A send counts when
-- its row commits, and it commits together with the job's mark: so a mark that is called off
-- (the conditional mark, when the claim is no longer this consumer's) sends nothing.

-- name: drop
DROP TABLE IF EXISTS racelab.sent_emails;
DROP TABLE IF EXISTS racelab.email_jobs;
DROP TABLE IF EXISTS racelab.job_queues;

-- name: create
CREATE TABLE racelab.job_queues (
    run_id     text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE racelab.email_jobs (
    run_id        text NOT NULL,
    id            integer NOT NULL,
    email_to      text NOT NULL,
    subject       text NOT NULL,
    -- The request token of the claim that holds the job (the column of the source article); NULL
    -- while nobody has claimed it. Each claim has a token of its own within its run.
    request_token bigint,
    claimed_by    text,
    claimed_at    timestamptz,
    -- How often the job was claimed: more than once means a later claim took it over.
    claims        integer NOT NULL DEFAULT 0,
    sent_at       timestamptz,
    -- How often it was marked sent; each mark wrote one row of racelab.sent_emails.
    marks         integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, id)
);
-- What consumers look through: the jobs not sent yet, oldest first.
CREATE INDEX email_jobs_unsent ON racelab.email_jobs (run_id, id) WHERE sent_at IS NULL;
CREATE TABLE racelab.sent_emails (
    run_id   text NOT NULL,
    job_id   integer NOT NULL,
    consumer text NOT NULL,
    token    bigint,
    sent_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sent_emails_job ON racelab.sent_emails (run_id, job_id);

-- name: seed
INSERT INTO racelab.job_queues (run_id) VALUES (?)

-- name: forget
WITH run AS (SELECT CAST(? AS text) AS run_id),
gone AS (
    DELETE FROM racelab.job_queues q USING run
    WHERE q.run_id = run.run_id OR q.created_at < now() - interval '1 day'
    RETURNING q.run_id
),
jobs AS (
    DELETE FROM racelab.email_jobs j WHERE j.run_id IN (SELECT run_id FROM gone)
           OR j.run_id = (SELECT run_id FROM run)
)
DELETE FROM racelab.sent_emails s WHERE s.run_id IN (SELECT run_id FROM gone)
       OR s.run_id = (SELECT run_id FROM run)

-- name: add-job
INSERT INTO racelab.email_jobs (run_id, id, email_to, subject) VALUES (?, ?, ?, ?)

-- name: select-unsent
-- select-then-update: the oldest jobs not marked sent yet.
SELECT id FROM racelab.email_jobs WHERE run_id = ? AND sent_at IS NULL ORDER BY id LIMIT ?

-- name: claim-by-token
-- request-token, the claim of the source article: put my token on the oldest jobs only where
-- request_token is still NULL (with a lease, also where the lease of a claim ran out). It
-- commits at once. A job another consumer claimed meanwhile fails the recheck PostgreSQL makes
-- after waiting for that row lock, so the batch comes out short. Answers how many jobs it
-- found free and which it got.
WITH p AS (SELECT CAST(? AS text) AS run_id, CAST(? AS bigint) AS token, CAST(? AS text) AS consumer,
                  NULLIF(CAST(? AS integer), 0) * interval '1 millisecond' AS lease),
free AS (
    SELECT j.id FROM racelab.email_jobs j
    WHERE j.run_id = (SELECT run_id FROM p) AND j.sent_at IS NULL
      AND (j.request_token IS NULL
           OR j.claimed_at < now() - (SELECT lease FROM p))
    ORDER BY j.id LIMIT ?
),
claimed AS (
    UPDATE racelab.email_jobs j
    SET request_token = p.token, claimed_by = p.consumer, claimed_at = now(), claims = j.claims + 1
    FROM free, p
    WHERE j.run_id = p.run_id AND j.id = free.id AND j.sent_at IS NULL
      AND (j.request_token IS NULL OR j.claimed_at < now() - p.lease)
    RETURNING j.id
)
SELECT (SELECT count(*) FROM free), (SELECT array_agg(id ORDER BY id) FROM claimed)

-- name: select-by-token
-- request-token, the second step of the article: the jobs that carry my token.
SELECT id FROM racelab.email_jobs WHERE run_id = ? AND request_token = ? ORDER BY id

-- name: claim-skip-locked
-- skip-locked: one statement locks the oldest claimable jobs nobody else has locked, passing
-- over the locked ones instead of waiting for them, and claims them.
WITH p AS (SELECT CAST(? AS text) AS run_id, CAST(? AS bigint) AS token, CAST(? AS text) AS consumer,
                  NULLIF(CAST(? AS integer), 0) * interval '1 millisecond' AS lease),
free AS (
    SELECT j.id FROM racelab.email_jobs j
    WHERE j.run_id = (SELECT run_id FROM p) AND j.sent_at IS NULL
      AND (j.request_token IS NULL
           OR j.claimed_at < now() - (SELECT lease FROM p))
    ORDER BY j.id LIMIT ?
    FOR UPDATE SKIP LOCKED
)
UPDATE racelab.email_jobs j
SET request_token = p.token, claimed_by = p.consumer, claimed_at = now(), claims = j.claims + 1
FROM free, p
WHERE j.run_id = p.run_id AND j.id = free.id
RETURNING j.id

-- name: mark-sent
-- The final mark: marks the jobs sent and writes one outbox row per job, in one transaction. Rows
-- are locked in id order, so two consumers marking overlapping batches never deadlock. Answers
-- each job with how often it has now been marked. With only_mine, the mark is conditional on the
-- claim: only the jobs that still carry my token (a fencing token again: the token of the claim).
-- A job whose claim another consumer took over is then neither marked nor sent by me.
WITH p AS (SELECT CAST(? AS text) AS run_id, CAST(? AS integer[]) AS ids, CAST(? AS text) AS consumer,
                  CAST(? AS bigint) AS token, CAST(? AS boolean) AS only_mine),
mine AS (
    SELECT j.id FROM racelab.email_jobs j, p
    WHERE j.run_id = p.run_id AND j.id = ANY (p.ids)
      AND (NOT p.only_mine OR j.request_token = p.token)
    ORDER BY j.id FOR UPDATE OF j
),
marked AS (
    UPDATE racelab.email_jobs j SET sent_at = now(), marks = j.marks + 1
    FROM mine, p WHERE j.run_id = p.run_id AND j.id = mine.id
    RETURNING j.id, j.marks
),
logged AS (
    INSERT INTO racelab.sent_emails (run_id, job_id, consumer, token)
    SELECT p.run_id, marked.id, p.consumer, p.token FROM marked, p
)
SELECT id, marks FROM marked ORDER BY id

-- name: jobs
-- What the oracle reads: each job, how often it was claimed, who holds it, and how many
-- emails the outbox has for it.
SELECT j.id, j.claims, j.claimed_by, j.sent_at IS NOT NULL,
       (SELECT count(*) FROM racelab.sent_emails s WHERE s.run_id = j.run_id AND s.job_id = j.id)
FROM racelab.email_jobs j WHERE j.run_id = ? ORDER BY j.id

-- name: sent-by
SELECT consumer, count(*) FROM racelab.sent_emails WHERE run_id = ? GROUP BY consumer

-- name: observe
WITH run AS (SELECT CAST(? AS text) AS run_id)
SELECT count(*) FILTER (WHERE j.request_token IS NULL AND j.sent_at IS NULL),
       count(*) FILTER (WHERE j.request_token IS NOT NULL AND j.sent_at IS NULL),
       count(*) FILTER (WHERE j.sent_at IS NOT NULL),
       (SELECT count(*) FROM racelab.sent_emails s WHERE s.run_id = (SELECT run_id FROM run))
FROM racelab.email_jobs j WHERE j.run_id = (SELECT run_id FROM run)
