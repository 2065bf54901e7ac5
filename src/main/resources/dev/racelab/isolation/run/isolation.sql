-- RaceLab's own statements for running isolation specs. The specs' SQL runs only in a scratch
-- database RaceLab creates for the spec and drops after it.

-- name: is-blocked
-- isolationtester's question, asked on the control connection every 10 ms while a step runs:
-- is this session waiting for a lock (or a safe snapshot) held by one of the spec's sessions?
SELECT pg_catalog.pg_isolation_test_session_is_blocked($1::int, $2::int[])

-- name: blocked-by
-- Who holds a waiting session up: the server processes whose locks it waits for (the lock table
-- pg_locks shows), and those whose snapshots a serializable read-only transaction waits out.
SELECT pg_catalog.array_cat(pg_catalog.pg_blocking_pids($1::int), pg_catalog.pg_safe_snapshot_blocking_pids($1::int))

-- The scratch database, on a connection of RaceLab's own to the server's configured database.
-- Names of databases cannot be parameters: format() quotes RaceLab's generated name (%I) and the
-- values (%L) on the server, and the statement it returns is run as it is.

-- name: rights
SELECT rolsuper, rolcreatedb, current_user, pg_catalog.current_setting('server_version_num')::int AS version,
       rolcreaterole
FROM pg_catalog.pg_roles WHERE rolname = current_user

-- name: create-database
SELECT pg_catalog.format('CREATE DATABASE %I TEMPLATE template0 ENCODING %L LC_COLLATE %L LC_CTYPE %L', ?, 'UTF8', 'C', 'C')

-- name: create-owned-database
SELECT pg_catalog.format('CREATE DATABASE %I OWNER %I TEMPLATE template0 ENCODING %L LC_COLLATE %L LC_CTYPE %L', ?, ?, 'UTF8', 'C', 'C')

-- name: mark-database
SELECT pg_catalog.format('COMMENT ON DATABASE %I IS %L', ?, ?)

-- name: set-database
SELECT pg_catalog.format('ALTER DATABASE %I SET %I TO %L', ?, ?, ?)

-- name: terminate-sessions
SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity
WHERE datname = ? AND pid <> pg_catalog.pg_backend_pid()

-- name: drop-database
SELECT pg_catalog.format('DROP DATABASE IF EXISTS %I', ?)

-- name: drop-database-force
SELECT pg_catalog.format('DROP DATABASE IF EXISTS %I WITH (FORCE)', ?)

-- name: database-exists
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_database WHERE datname = ?)

-- name: leftovers
-- Scratch databases a RaceLab that was killed left behind: named as RaceLab names them, marked
-- by RaceLab with a time after which they are leftovers, and with no session in them.
SELECT d.datname, pg_catalog.shobj_description(d.oid, 'pg_database')
FROM pg_catalog.pg_database d
WHERE d.datname LIKE 'racelab\_isolation\_%'
  AND pg_catalog.shobj_description(d.oid, 'pg_database') LIKE 'RaceLab isolation scratch database; a leftover after %'
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a WHERE a.datid = d.oid)

-- The role a spec's sessions log in as, and the roles a spec creates (SpecLogin, SpecRoles). Each
-- template's format() makes the statement; ?s are the values it quotes (AdminSql).

-- name: create-login
-- A login for one run of a spec: LOGIN and nothing more, a few sessions, a password that expires.
SELECT pg_catalog.format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS '
       'INHERIT CONNECTION LIMIT %s VALID UNTIL %L PASSWORD %L', ?, ?::int, ?, ?)

-- name: create-spec-role
-- A role a spec creates, under its run's name: a plain one that never logs in ($2: INHERIT or NOINHERIT).
SELECT pg_catalog.format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS %s',
       ?, CASE WHEN ?::boolean THEN 'INHERIT' ELSE 'NOINHERIT' END)

-- name: mark-role
SELECT pg_catalog.format('COMMENT ON ROLE %I IS %L', ?, ?)

-- name: grant-role-to-login
SELECT pg_catalog.format('GRANT %I TO CURRENT_USER', ?)

-- name: grant-role
SELECT pg_catalog.format('GRANT %I TO %I', ?, ?)

-- name: drop-roles
-- A spec's DROP ROLE [IF EXISTS] a, b, … ($2: the names), as one statement, as the spec wrote it.
SELECT pg_catalog.format('DROP ROLE %s%s', CASE WHEN ?::boolean THEN 'IF EXISTS ' ELSE '' END,
       (SELECT pg_catalog.string_agg(pg_catalog.format('%I', r), ', ') FROM pg_catalog.unnest(?::text[]) r))

-- name: drop-role-if-exists
SELECT pg_catalog.format('DROP ROLE IF EXISTS %I', ?)

-- name: drop-owned
-- What a login of a spec's run was granted outside its scratch database (settings) goes with it.
SELECT pg_catalog.format('DROP OWNED BY %I', ?)

-- name: no-login
-- Before a spec's login is dropped: nobody logs in as it any more, whatever the spec did to it.
SELECT pg_catalog.format('ALTER ROLE %I NOLOGIN', ?)

-- name: public-schema-grant
SELECT pg_catalog.format('GRANT USAGE, CREATE ON SCHEMA public TO %I', ?)

-- name: public-schema-revoke
SELECT pg_catalog.format('REVOKE USAGE, CREATE ON SCHEMA public FROM %I', ?)

-- name: grant-setting
SELECT pg_catalog.format('GRANT SET ON PARAMETER %I TO %I', ?, ?)

-- name: grant-function
-- $1 is the function as the server names it (regprocedure's text).
SELECT pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %I', ?, ?)

-- name: grant-catalog-column
SELECT pg_catalog.format('GRANT UPDATE (%I) ON pg_catalog.%I TO %I', ?, ?, ?)

-- name: grant-toast
SELECT pg_catalog.format('GRANT USAGE, CREATE ON SCHEMA pg_toast TO %I', ?)

-- name: no-template
-- A scratch database its owner made a template of cannot be dropped: undone first.
SELECT pg_catalog.format('ALTER DATABASE %I IS_TEMPLATE false', ?)

-- name: prepared-in
SELECT count(*) FROM pg_catalog.pg_prepared_xacts WHERE database = ?

-- name: prepared-here
-- Transactions a spec prepared and left: they keep its scratch database from being dropped.
SELECT gid FROM pg_catalog.pg_prepared_xacts WHERE database = pg_catalog.current_database()

-- name: rollback-prepared
SELECT pg_catalog.format('ROLLBACK PREPARED %L', ?)

-- name: sessions-in
SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE datname = ?

-- name: scratch-databases
SELECT datname FROM pg_catalog.pg_database WHERE datname LIKE 'racelab\_isolation\_%'

-- name: marked-roles
-- Roles of RaceLab's spec runs, each with the mark saying when it would be a leftover.
SELECT r.rolname, pg_catalog.shobj_description(r.oid, 'pg_authid')
FROM pg_catalog.pg_roles r
WHERE r.rolname LIKE 'racelab\_spec\_%'
  AND pg_catalog.shobj_description(r.oid, 'pg_authid') LIKE 'RaceLab isolation role; a leftover after %'

-- name: superuser-settings
-- Of the settings a spec sets, those only a superuser may set ($1: their names).
SELECT name FROM pg_catalog.pg_settings WHERE name = ANY (?::text[]) AND context = 'superuser' ORDER BY name

-- name: revoked-functions
-- Of the functions a spec calls, those of PostgreSQL's own that not everyone may call ($1: their
-- names), each as GRANT names it.
SELECT p.proname, p.oid::pg_catalog.regprocedure::text
FROM pg_catalog.pg_proc p
WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace AND p.proname = ANY (?::text[])
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.aclexplode(COALESCE(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
                  WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE')
ORDER BY 1, 2

-- name: what-a-spec-left
-- What a spec could leave in its scratch database for the next spec run there, as one digest:
-- every object made in it (an oid from FirstNormalObjectId, 16384, on, in each of the database's
-- own catalogs; the temporary schemas sessions reuse left out), every schema's owner and rights,
-- every comment, the database's own rights, limit, settings and comment, its prepared
-- transactions, and what the spec's login ($1) may change of itself: its settings in any
-- database, its connection limit and its expiry. The same digest as just after the database was
-- made says that nothing was left. (A changed password is found by logging in.)
SELECT pg_catalog.md5(pg_catalog.concat_ws('|',
  (SELECT pg_catalog.sum(pg_catalog.substring(pg_catalog.query_to_xml(pg_catalog.format(
       'SELECT count(*) AS n FROM %s WHERE oid >= 16384', c.oid::pg_catalog.regclass), false, true, '')::text,
       '<n>([0-9]+)</n>')::bigint)
     FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = 'oid'
     WHERE c.relnamespace = 'pg_catalog'::pg_catalog.regnamespace AND c.relkind = 'r' AND NOT c.relisshared)
   - (SELECT pg_catalog.count(*) FROM pg_catalog.pg_namespace n WHERE n.oid >= 16384
      AND (n.nspname LIKE 'pg\_temp\_%' OR n.nspname LIKE 'pg\_toast\_temp\_%')),
  (SELECT pg_catalog.string_agg(n.nspname || ':' || n.nspowner || ':' || coalesce(n.nspacl::text, ''), ','
      ORDER BY n.nspname) FROM pg_catalog.pg_namespace n
      WHERE n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'),
  (SELECT pg_catalog.md5(pg_catalog.string_agg(d.classoid || ':' || d.objoid || ':' || d.objsubid || ':'
      || d.description, ',' ORDER BY d.classoid, d.objoid, d.objsubid)) FROM pg_catalog.pg_description d),
  (SELECT d.datconnlimit || ':' || d.datallowconn || ':' || d.datistemplate || ':' || coalesce(d.datacl::text, '')
      || ':' || coalesce(pg_catalog.shobj_description(d.oid, 'pg_database'), '')
      FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database()),
  (SELECT pg_catalog.string_agg(s.setdatabase || '/' || s.setrole || '=' || pg_catalog.array_to_string(s.setconfig, ','),
      ';' ORDER BY s.setdatabase, s.setrole)
      FROM pg_catalog.pg_db_role_setting s
      WHERE s.setdatabase = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
         OR s.setrole = (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = ?)),
  (SELECT r.rolconnlimit || ':' || coalesce(r.rolvaliduntil::text, '') FROM pg_catalog.pg_roles r
      WHERE r.rolname = ?),
  (SELECT pg_catalog.count(*) FROM pg_catalog.pg_prepared_xacts p
      WHERE p.database = pg_catalog.current_database())))
