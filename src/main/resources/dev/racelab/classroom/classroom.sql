-- RaceLab's statements for a class's confinement in PostgreSQL (ClassDatabase). Names of roles and
-- databases cannot be parameters: format() quotes RaceLab's generated names (%I) and the values
-- (%L) on the server, and the statement it returns is run as it is.

-- name: rights
SELECT rolsuper, rolcreatedb, rolcreaterole, current_user FROM pg_catalog.pg_roles WHERE rolname = current_user

-- name: create-role
-- The class's login: LOGIN and nothing more, a bounded number of sessions, a password that expires.
SELECT pg_catalog.format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS '
       'NOINHERIT CONNECTION LIMIT %s VALID UNTIL %L PASSWORD %L', ?, ?::int, ?, ?)

-- name: mark-role
SELECT pg_catalog.format('COMMENT ON ROLE %I IS %L', ?, ?)

-- name: grant-role-to-login
-- A login that is no superuser must be a member of the class's role to give it the database.
SELECT pg_catalog.format('GRANT %I TO CURRENT_USER', ?)

-- name: create-database
SELECT pg_catalog.format('CREATE DATABASE %I OWNER %I TEMPLATE template0 ENCODING %L LC_COLLATE %L LC_CTYPE %L',
       ?, ?, 'UTF8', 'C', 'C')

-- name: mark-database
SELECT pg_catalog.format('COMMENT ON DATABASE %I IS %L', ?, ?)

-- name: only-owner-connects
SELECT pg_catalog.format('REVOKE ALL ON DATABASE %I FROM PUBLIC', ?)

-- name: no-login
SELECT pg_catalog.format('ALTER ROLE %I NOLOGIN', ?)

-- name: drop-database
SELECT pg_catalog.format('DROP DATABASE IF EXISTS %I WITH (FORCE)', ?)

-- name: drop-role
SELECT pg_catalog.format('DROP ROLE IF EXISTS %I', ?)

-- name: later
SELECT (pg_catalog.now() + ?::interval)::timestamptz

-- name: marked
-- Classes a killed RaceLab left behind: roles named and marked by RaceLab.
SELECT r.rolname, pg_catalog.shobj_description(r.oid, 'pg_authid')
FROM pg_catalog.pg_roles r
WHERE r.rolname LIKE 'racelab\_class\_%'
  AND pg_catalog.shobj_description(r.oid, 'pg_authid') LIKE 'RaceLab class; a leftover after %'

-- name: hba-file
SELECT pg_catalog.current_setting('hba_file')

-- name: reload
SELECT pg_catalog.pg_reload_conf()

-- name: hba-errors
SELECT count(*) FROM pg_catalog.pg_hba_file_rules WHERE error IS NOT NULL
