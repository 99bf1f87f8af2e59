#!/bin/sh
# The stack's PostgreSQL roles, as scripts/lib/databaseRoles.ts makes them on the embedded cluster:
# gateway_owner owns the gateway's database (migrations log in as it), gateway_app reads and
# writes its rows (the API and the worker), temporal owns Temporal's two databases. None is a
# superuser; every database refuses PUBLIC, so no login reaches another's database.
# The postgres image runs this once, on an empty data volume (docker-entrypoint-initdb.d), as
# POSTGRES_USER. It is safe to run again (a volume from before the roles):
#   docker compose exec postgres sh /docker-entrypoint-initdb.d/10-roles.sh
# Passwords come from the environment (compose reads them from .env), never from this file.
set -eu
: "${GATEWAY_DB_PASSWORD:?}" "${GATEWAY_MIGRATION_DB_PASSWORD:?}" "${TEMPORAL_DB_PASSWORD:?}"

psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -v owner_password="$GATEWAY_MIGRATION_DB_PASSWORD" \
  -v app_password="$GATEWAY_DB_PASSWORD" \
  -v temporal_password="$TEMPORAL_DB_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I', r) FROM unnest(ARRAY['gateway_owner', 'gateway_app', 'temporal']) AS r
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) \gexec
ALTER ROLE gateway_owner LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT PASSWORD :'owner_password';
ALTER ROLE gateway_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT PASSWORD :'app_password';
ALTER ROLE temporal LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT PASSWORD :'temporal_password';

SELECT format('CREATE DATABASE %I OWNER %I', d, o)
  FROM (VALUES ('gateway', 'gateway_owner'), ('temporal', 'temporal'), ('temporal_visibility', 'temporal')) AS t(d, o)
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = d) \gexec
ALTER DATABASE gateway OWNER TO gateway_owner;
ALTER DATABASE temporal OWNER TO temporal;
ALTER DATABASE temporal_visibility OWNER TO temporal;
REVOKE ALL ON DATABASE gateway, temporal, temporal_visibility FROM PUBLIC;
GRANT CONNECT ON DATABASE gateway TO gateway_app;

\connect gateway
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO gateway_app;
-- What migrations create from now on, and what is there already.
ALTER DEFAULT PRIVILEGES FOR ROLE gateway_owner IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO gateway_app;
ALTER DEFAULT PRIVILEGES FOR ROLE gateway_owner IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO gateway_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO gateway_app;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO gateway_app;
SQL
