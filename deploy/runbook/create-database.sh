#!/usr/bin/env bash
# Runbook step "the service's role and database" (deploy/README.md, "Building the cluster"): creates
# the `invoicing` login role and its database on the cluster's leader, through the PostgreSQL
# HAProxy and over TLS with the server's certificate checked (verify-full), then shows the
# connection the service will have. Running it again changes nothing (the password is set again).
# `npm run rehearsal:failover` runs this very script against its own cluster.
#
# Environment (libpq's own variables):
#   PGHOST, PGPORT          the PostgreSQL HAProxy, e.g. postgres.invoicing.internal and 5000
#   PGSSLROOTCERT           the cluster's CA, e.g. /etc/invoicing/ca.crt
#   PGPASSWORD              the postgres superuser's password (PATRONI_SUPERUSER_PASSWORD)
#   INVOICING_DB_PASSWORD   the new role's password: the one DATABASE_URL will carry
set -euo pipefail
: "${PGHOST:?set PGHOST (the PostgreSQL HAProxy)}" "${PGSSLROOTCERT:?set PGSSLROOTCERT (the CA)}"
: "${INVOICING_DB_PASSWORD:?set INVOICING_DB_PASSWORD}"
export PGSSLMODE="${PGSSLMODE:-verify-full}" PGUSER="${PGUSER:-postgres}" PGDATABASE=postgres
psql -X -q -v ON_ERROR_STOP=1 -v password="$INVOICING_DB_PASSWORD" <<'SQL'
select 'create role invoicing login' where not exists (select from pg_roles where rolname = 'invoicing') \gexec
select format('alter role invoicing password %L', :'password') \gexec
select 'create database invoicing owner invoicing' where not exists (select from pg_database where datname = 'invoicing') \gexec
SQL
# The check: the service's own login reaches the leader, over TLS.
seen="$(PGUSER=invoicing PGPASSWORD="$INVOICING_DB_PASSWORD" PGDATABASE=invoicing psql -X -At -v ON_ERROR_STOP=1 -c \
  "select current_user, pg_is_in_recovery(), coalesce((select version from pg_stat_ssl where pid = pg_backend_pid()), 'none')")"
IFS='|' read -r user recovery tls <<<"$seen"
if [ "$user" != invoicing ] || [ "$recovery" != f ] || [ "$tls" = none ]; then
  echo "check failed: user $user, in recovery $recovery, TLS $tls (expected invoicing, f, a TLS version)" >&2
  exit 1
fi
echo "invoicing: role and database ready; it connects to the leader over $tls"
