#!/usr/bin/env bash
# A small certificate authority for the highly available cluster (deploy/README.md, "TLS"): one CA
# of the cluster's own, and a key and certificate per machine, each valid for the names and
# addresses others use to reach it. etcd (client and peer TLS, client certificates required),
# PostgreSQL (hostssl only), Patroni's REST API and HAProxy's checks all trust this CA and nothing
# else, so a key it signed is what makes a machine a member: give one only to the etcd and database
# machines. The API machines get ca.crt alone (DATABASE_URL's sslrootcert).
#
#   deploy/tls/make-certs.sh DIR ca                      the CA (DIR/ca.crt, DIR/ca.key); kept if present
#   deploy/tls/make-certs.sh DIR cert NAME [SAN...]       DIR/NAME.crt and DIR/NAME.key, signed by the CA
#
# Each SAN is a DNS name or an IP address; NAME is the certificate's CN and is added as a DNS name.
# A certificate is good for a server and a client (etcd peers and Patroni are both), for 825 days;
# running `cert` again for a NAME renews it. Keys are ECDSA P-256, files 0600. Keep DIR (and ca.key
# above all) on an operator's machine, not on the cluster; `npm run rehearsal:failover` runs this
# very script into its temporary directory.
set -euo pipefail
umask 077

usage() {
  sed -n '9,10p' "$0" | sed 's/^#   //' >&2
  exit 2
}
[ $# -ge 2 ] || usage
dir="$1"
command="$2"
shift 2
mkdir -p "$dir"

case "$command" in
ca)
  if [ -s "$dir/ca.key" ] && [ -s "$dir/ca.crt" ]; then
    echo "$dir/ca.crt: kept (it exists)"
    exit 0
  fi
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$dir/ca.key" -out "$dir/ca.crt" -days 3650 -subj "/CN=invoicing cluster CA" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  chmod 0644 "$dir/ca.crt"
  echo "$dir/ca.crt: made"
  ;;
cert)
  [ $# -ge 1 ] || usage
  name="$1"
  shift
  case "$name" in */* | .* | "") echo "bad NAME: $name" >&2 && exit 2 ;; esac
  [ -s "$dir/ca.key" ] || { echo "$dir/ca.key: missing; run: $0 $dir ca" >&2 && exit 1; }
  sans="DNS:$name"
  for san in "$@"; do
    if [[ "$san" =~ ^[0-9.]+$ || "$san" == *:* ]]; then sans="$sans,IP:$san"; else sans="$sans,DNS:$san"; fi
  done
  extensions="$(mktemp)"
  trap 'rm -f "$extensions" "$dir/$name.csr"' EXIT
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth,clientAuth" "subjectAltName=$sans" >"$extensions"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$dir/$name.key" -out "$dir/$name.csr" -subj "/CN=$name" 2>/dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 825 -sha256 -extfile "$extensions" \
    -out "$dir/$name.crt" 2>/dev/null
  chmod 0644 "$dir/$name.crt"
  echo "$dir/$name.crt: $sans"
  ;;
*) usage ;;
esac
