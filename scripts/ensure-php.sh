#!/usr/bin/env bash
# The PHP client's tests (npm run test:clients) run Debian's PHP with ext-curl and PDO SQLite (the
# offline queue's store), Debian's PHPUnit,
# and Debian's Composer (with ext-zip, which Composer's artifact repositories need) to install the
# packed client as partners do. Idempotent: installs the Debian packages only when something is
# missing. PHP_BIN, PHPUNIT_BIN and COMPOSER_BIN point the tests at other binaries.
set -euo pipefail
php="${PHP_BIN:-php}"
phpunit="${PHPUNIT_BIN:-phpunit}"
composer="${COMPOSER_BIN:-composer}"
have_all() {
  command -v "$php" >/dev/null &&
    "$php" -r 'exit(PHP_VERSION_ID >= 80100 && extension_loaded("curl") && extension_loaded("json") && extension_loaded("zip") && extension_loaded("pdo_sqlite") ? 0 : 1);' &&
    command -v "$phpunit" >/dev/null &&
    command -v "$composer" >/dev/null
}
report() {
  echo "php: $("$php" -r 'echo PHP_VERSION;') (curl, json, zip, pdo_sqlite); $("$phpunit" --version | head -n 1); $(COMPOSER_ALLOW_SUPERUSER=1 "$composer" --version 2>/dev/null | head -n 1)"
}
if have_all; then
  report
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "PHP 8.1+ with ext-curl, ext-zip and PDO SQLite, PHPUnit and Composer are needed and apt-get is not available: install them and set PHP_BIN / PHPUNIT_BIN / COMPOSER_BIN" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
echo "installing Debian's php-cli, php-curl, php-zip, php-sqlite3, phpunit and composer (apt-get)..."
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  php-cli php-curl php-zip php-sqlite3 phpunit composer >/dev/null
have_all || { echo "php (8.1+, curl, zip, pdo_sqlite), phpunit or composer still missing after apt-get" >&2; exit 1; }
report
