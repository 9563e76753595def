#!/usr/bin/env bash
# scripts/vendor-js.sh -- vendor the viewer's JavaScript library into the package.
#
# `moteip view` draws with D3 (d3js.org), pinned in python/viewer-js/package.json
# and package-lock.json (version and sha512 integrity of every package). This
# script installs exactly that (`npm ci`, which checks the integrity) and copies
# the bundle, with its licence, into python/moteip/viewer/, where it ships as
# package data. The copies are not in git; scripts/setup.sh runs this script,
# and does nothing when the copies match the lock file already.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/python/viewer-js"
DST="$ROOT/python/moteip/viewer"
STAMP="$DST/.vendor.sha256"

want=$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ -f "$DST/d3.min.js" ] && [ -f "$DST/d3.LICENSE.txt" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
    echo "[vendor-js] d3 up to date"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    # No npm: the same locked tarball, checked against the lock's sha512.
    python3 "$ROOT/scripts/fetch-d3.py" "$DST"
    echo "$want" >"$STAMP"
    exit 0
fi
(cd "$SRC" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
cp "$SRC/node_modules/d3/dist/d3.min.js" "$DST/d3.min.js"
cp "$SRC/node_modules/d3/LICENSE" "$DST/d3.LICENSE.txt"
echo "$want" >"$STAMP"
echo "[vendor-js] d3 $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$SRC/node_modules/d3/package.json" | head -n1) -> $DST/d3.min.js"
