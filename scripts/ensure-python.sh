#!/usr/bin/env bash
# The Python client's tests (npm run test:clients) need Python 3.9+ with venv and pip (the packed
# wheel is installed into a fresh venv). Idempotent: installs Debian's python3 and python3-venv only
# when missing. PYTHON_BIN points the tests at another interpreter.
set -euo pipefail
python="${PYTHON_BIN:-python3}"
have_all() {
  command -v "$python" >/dev/null &&
    "$python" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null
}
if have_all; then
  echo "python: $("$python" --version 2>&1) (venv, ensurepip)"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "Python 3.9+ with venv is needed and apt-get is not available: install it and set PYTHON_BIN" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's python3 and python3-venv (apt-get)..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
have_all || { echo "python3 (3.9+) with venv still missing after apt-get" >&2; exit 1; }
echo "python: $("$python" --version 2>&1) (venv, ensurepip)"
