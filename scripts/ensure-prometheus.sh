#!/usr/bin/env bash
# The production rehearsal (npm run rehearsal, deploy/rehearsal/) runs Debian's Prometheus against
# the instances' operations ports and checks deploy/prometheus/alerts.yml with promtool (which
# the same package brings). This installs the package when either is missing (apt-get update
# only then); running it again changes nothing. The rehearsal starts its own Prometheus on a free
# port: the package's service is neither needed nor started here. Set PROMETHEUS_PATH and
# PROMTOOL_PATH to use other binaries.
set -euo pipefail
prometheus="${PROMETHEUS_PATH:-/usr/bin/prometheus}"
promtool="${PROMTOOL_PATH:-/usr/bin/promtool}"
if [ -x "$prometheus" ] && [ -x "$promtool" ]; then
  echo "prometheus: $("$prometheus" --version 2>&1 | head -n 1)"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "prometheus or promtool is missing ($prometheus, $promtool) and apt-get is not available: install Prometheus and set PROMETHEUS_PATH and PROMTOOL_PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's prometheus (apt-get)..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
echo "prometheus: $(/usr/bin/prometheus --version 2>&1 | head -n 1)"
