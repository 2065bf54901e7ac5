-- The fencing lab: a book whose price many clients set at once, and the fencing token that is
-- supposed to make the final price predictable. Each run owns one book and one token row.

-- name: drop
DROP TABLE IF EXISTS racelab.books;
DROP TABLE IF EXISTS racelab.fencing_tokens;
DROP FUNCTION IF EXISTS racelab.books_note_replaced();

-- name: create
CREATE TABLE racelab.fencing_tokens (
    name       text PRIMARY KEY,
    token      bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE racelab.books (
    run_id         text PRIMARY KEY,
    title          text NOT NULL,
    price          bigint NOT NULL,
    token          bigint NOT NULL DEFAULT 0,
    -- Set by the trigger on every write: the token of the write this one replaced. A write whose
    -- token is lower than the one it replaced is a stale write that got through.
    replaced_token bigint NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION racelab.books_note_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.replaced_token := OLD.token;
    RETURN NEW;
END
$$;
CREATE TRIGGER books_note_replaced BEFORE UPDATE OF price ON racelab.books
    FOR EACH ROW EXECUTE FUNCTION racelab.books_note_replaced();

-- name: seed
WITH book AS (
    INSERT INTO racelab.books (run_id, title, price) VALUES (?, 'Concurrency Control and Recovery', 0)
    RETURNING run_id
)
INSERT INTO racelab.fencing_tokens (name) SELECT 'books:' || run_id FROM book

-- name: forget
WITH gone AS (
    DELETE FROM racelab.books WHERE run_id = ? OR created_at < now() - interval '1 day' RETURNING run_id
)
DELETE FROM racelab.fencing_tokens WHERE name IN (SELECT 'books:' || run_id FROM gone)

-- name: next-token
UPDATE racelab.fencing_tokens SET token = token + 1 WHERE name = 'books:' || ? RETURNING token

-- name: latest-token
SELECT token FROM racelab.fencing_tokens WHERE name = 'books:' || ?

-- name: read-book
SELECT price, token FROM racelab.books WHERE run_id = ?

-- name: write-price
UPDATE racelab.books SET price = ?, token = ? WHERE run_id = ? RETURNING replaced_token

-- name: write-price-if-newer
UPDATE racelab.books SET price = ?, token = ? WHERE run_id = ? AND token < ? RETURNING replaced_token

-- name: observe-book
SELECT price, token FROM racelab.books WHERE run_id = ?

-- name: observe-tokens
SELECT token FROM racelab.fencing_tokens WHERE name = 'books:' || ?

-- name: book-xmax
SELECT xmax::text::bigint FROM racelab.books WHERE run_id = ?

-- name: tokens-xmax
SELECT xmax::text::bigint FROM racelab.fencing_tokens WHERE name = 'books:' || ?
