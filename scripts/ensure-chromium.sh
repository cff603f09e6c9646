#!/usr/bin/env bash
# The browser test (test/docs/browser.process.test.ts) drives Debian's Chromium through playwright-core;
# no browser is ever downloaded by npm. This installs the Debian package when it is missing.
# Set CHROMIUM_PATH to use another Chromium binary.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$chromium" ]; then
  echo "chromium: $("$chromium" --version 2>/dev/null || echo "$chromium")"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "chromium is missing at $chromium and apt-get is not available: install Chromium and set CHROMIUM_PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's chromium (apt-get)..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
echo "chromium: $(/usr/bin/chromium --version)"
