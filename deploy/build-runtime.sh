#!/bin/sh
# deploy/build-runtime.sh DIR: assembles in DIR exactly what runs in production (what the image of
# deploy/Dockerfile ships, and what a host can run with systemd): the compiled JavaScript (dist/),
# bin/, the migrations (drizzle/), the docs site already built (docs/dist/), the client packages the
# docs server offers under /sdk/ (clients/dist/: TypeScript, MCP, Python, PHP; needs python3 or
# PYTHON_BIN), package.json with its lock, and the runtime dependencies only (npm ci --omit=dev: no TypeScript, no tsx, no Redocly CLI,
# no marked). `node DIR/bin/invoicing serve` then needs nothing else: no checkout, no build.
#
# Run from a checkout whose dependencies are installed (npm ci). dist/ is rebuilt only when a
# source is newer than its last build; the docs are built into DIR.
#   DOCS_URL      base of every doc_url the docs' examples show (default: the local docs server)
#   BUILD_COMMIT  the commit recorded in DIR/build-info.json (default: git rev-parse HEAD, if any)
# DIR must be empty, absent, or a tree this script made (it is then replaced).
set -eu

if [ "$#" -ne 1 ] || [ -z "$1" ]; then
  echo "usage: deploy/build-runtime.sh DIR" >&2
  exit 2
fi
DIR=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MARK=.invoicing-runtime

cd "$ROOT"
if [ ! -x node_modules/.bin/tsc ] || [ ! -x node_modules/.bin/tsx ]; then
  echo "error: the development dependencies are missing in $ROOT: run npm ci first" >&2
  exit 1
fi
if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR")" ] && [ ! -f "$DIR/$MARK" ]; then
  echo "error: $DIR is not empty and was not made by this script: choose an empty or new directory" >&2
  exit 1
fi

# 1. Compiled code, rebuilt when a source is newer than the last build.
if [ ! -f dist/.build-stamp ] || [ -n "$(find src tsconfig.json tsconfig.build.json -newer dist/.build-stamp -print -quit)" ]; then
  npm run --silent build
fi

# 2. The tree: replaced whole, so nothing of an older version stays behind.
rm -rf "$DIR"
mkdir -p "$DIR/docs"
cp package.json package-lock.json "$DIR/"
cp -R dist bin drizzle "$DIR/"
COMMIT=${BUILD_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
printf '{\n  "commit": "%s",\n  "built_at": "%s"\n}\n' "$COMMIT" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$DIR/build-info.json"
touch "$DIR/$MARK"

# 3. The docs site, built for the tree itself (a server of the checkout may be serving docs/dist).
node_modules/.bin/tsx scripts/build-docs.ts --out "$DIR/docs/dist"

# 4. The client packages, every one of them (--all: no python3 is an error here, not a gap).
node_modules/.bin/tsx scripts/pack-clients.ts --all --out "$DIR/clients/dist" >/dev/null

# 5. Runtime dependencies only, exactly as locked. No install scripts: none is needed at run time.
cd "$DIR"
npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error
echo "runtime tree in $DIR ($(du -sh . | cut -f1)); run: node $DIR/bin/invoicing serve"
