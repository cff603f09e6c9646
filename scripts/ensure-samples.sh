#!/usr/bin/env bash
# The curl samples of the docs (docs/samples/*.sh, run by npm run test:clients) use what a partner's
# shell has: POSIX sh, curl, openssl (a fresh Idempotency-Key, the webhook HMAC check), base64 and
# od (coreutils), and jq to walk pages. Idempotent: installs Debian's packages only when a command
# is missing.
set -euo pipefail
missing=()
for command in curl openssl jq base64 od; do
  command -v "$command" >/dev/null || missing+=("$command")
done
report() {
  echo "samples: $(curl --version | head -n 1 | cut -d' ' -f1-2), $(openssl version | cut -d' ' -f1-2), $(jq --version)"
}
if [ "${#missing[@]}" -eq 0 ]; then
  report
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "the curl samples need ${missing[*]} and apt-get is not available: install them" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's curl, openssl, jq and coreutils (apt-get) for: ${missing[*]}..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends curl openssl jq coreutils >/dev/null
for command in curl openssl jq base64 od; do
  command -v "$command" >/dev/null || { echo "$command still missing after apt-get" >&2; exit 1; }
done
report
