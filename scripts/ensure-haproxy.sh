#!/usr/bin/env bash
# The production rehearsal (npm run rehearsal, deploy/rehearsal/) puts Debian's HAProxy in front of
# the instances. This installs the Debian package when it is missing (apt-get update only then);
# running it again changes nothing. Set HAPROXY_PATH to use another haproxy binary.
set -euo pipefail
haproxy="${HAPROXY_PATH:-/usr/sbin/haproxy}"
if [ -x "$haproxy" ]; then
  echo "haproxy: $("$haproxy" -v 2>/dev/null | head -n 1)"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "haproxy is missing at $haproxy and apt-get is not available: install HAProxy and set HAPROXY_PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's haproxy (apt-get)..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends haproxy >/dev/null
echo "haproxy: $(/usr/sbin/haproxy -v | head -n 1)"
