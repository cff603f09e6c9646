#!/usr/bin/env bash
# The failover rehearsal (npm run rehearsal:failover, deploy/rehearsal/failover/) runs Debian's
# Patroni on etcd, with pgBackRest archiving the leader's WAL, over PostgreSQL 15's binaries.
# This installs the Debian packages patroni, etcd-server, etcd-client, pgbackrest, openssl (the
# certificates: deploy/tls/make-certs.sh) and
# postgresql-15 when any of them is missing (apt-get update only then); running it again changes
# nothing. The rehearsal starts its own etcd, Patroni nodes and PostgreSQL in a temporary
# directory: the packages' services are neither needed nor started here. HAProxy comes from
# scripts/ensure-haproxy.sh.
set -euo pipefail
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
missing=()
command -v patroni >/dev/null || missing+=(patroni)
command -v etcd >/dev/null || missing+=(etcd-server)
command -v etcdctl >/dev/null || missing+=(etcd-client)
command -v pgbackrest >/dev/null || missing+=(pgbackrest)
command -v openssl >/dev/null || missing+=(openssl)
# Patroni's HTTPS to etcd and to the other nodes' REST API (urllib3) needs idna, which Debian's
# patroni package does not pull in without recommends. Debian's python3 (patroni's interpreter), not
# whichever python3 comes first in PATH (a pyenv one may have idna while Patroni's has not).
/usr/bin/python3 -c 'import idna' 2>/dev/null || missing+=(python3-idna)
[ -x "$pg_bin/pg_ctl" ] || missing+=(postgresql-15)
report() {
  echo "patroni: $(patroni --version 2>&1 | head -n 1); etcd: $(etcd --version 2>&1 | head -n 1);" \
    "$(pgbackrest version 2>&1 | head -n 1); postgres: $("$pg_bin/postgres" --version)"
}
if [ ${#missing[@]} -eq 0 ]; then
  report
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "missing: ${missing[*]} and apt-get is not available: install them (and set PG_BIN to PostgreSQL 15's bin directory)" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's ${missing[*]} (apt-get)..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
report
