#!/usr/bin/env bash
# The PHP client's tests (npm run test:clients) run Debian's PHP with ext-curl and Debian's PHPUnit.
# Idempotent: installs the Debian packages only when one of them is missing. Set PHP_BIN and
# PHPUNIT_BIN to use other binaries.
set -euo pipefail
php="${PHP_BIN:-php}"
phpunit="${PHPUNIT_BIN:-phpunit}"
have_all() {
  command -v "$php" >/dev/null &&
    "$php" -r 'exit(extension_loaded("curl") && extension_loaded("json") ? 0 : 1);' &&
    command -v "$phpunit" >/dev/null
}
if have_all; then
  echo "php: $("$php" -r 'echo PHP_VERSION;') (curl, json); $("$phpunit" --version | head -n 1)"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "PHP 8.1+ with ext-curl and PHPUnit are needed and apt-get is not available: install them and set PHP_BIN / PHPUNIT_BIN" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's php-cli, php-curl and phpunit (apt-get)..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends php-cli php-curl phpunit >/dev/null
have_all || { echo "php, ext-curl or phpunit still missing after apt-get" >&2; exit 1; }
echo "php: $("$php" -r 'echo PHP_VERSION;') (curl, json); $("$phpunit" --version | head -n 1)"
