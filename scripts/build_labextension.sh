#!/usr/bin/env bash
# Build the JupyterLab extension (labextension/, TypeScript) into the prebuilt
# form shipped inside the Python package: kernel_ext/xjit_kernel_ext/labextension/.
#
# Only rebuilds when stale: the output holds a hash of the extension sources
# (package.json, package-lock.json, tsconfig*, src/, style/, the protocol
# schema) and the Node version; a build with the same hash is also kept in
# ${XJIT_LABEXT_CACHE:-~/.cache/xjit-labextension}/<hash> and copied from
# there by later checkouts. node_modules/ (needed by the build and the
# TypeScript unit tests) is installed with `npm ci` when missing or when
# package-lock.json changed.
#
#   bash scripts/build_labextension.sh          # build if stale
#   bash scripts/build_labextension.sh --force  # always rebuild
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$ROOT/labextension"
OUT="$ROOT/kernel_ext/xjit_kernel_ext/labextension"
PY="${XJIT_PYTHON:-$ROOT/.venv/bin/python}"
FORCE="${1:-}"

log() { echo "[labextension] $*" >&2; }

command -v node >/dev/null 2>&1 || { log "error: node not found (apt-get install nodejs npm)"; exit 1; }
command -v npm >/dev/null 2>&1 || { log "error: npm not found (apt-get install npm)"; exit 1; }

source_hash() {
    (
        cd "$ROOT"
        {
            node --version
            find labextension/package.json labextension/package-lock.json labextension/tsconfig.json \
                labextension/src labextension/style -type f -o -type l | LC_ALL=C sort
            cat labextension/package.json labextension/package-lock.json labextension/tsconfig.json
            find labextension/src labextension/style \( -type f -o -type l \) -print0 | LC_ALL=C sort -z | xargs -0 cat
        } | sha256sum | cut -c1-16
    )
}

# node_modules: npm ci when absent or when the lockfile changed.
lock_hash="$(sha256sum "$SRC/package-lock.json" | cut -c1-16)"
if [[ "$(cat "$SRC/node_modules/.xjit-lock-hash" 2>/dev/null || true)" != "$lock_hash" ]]; then
    log "npm ci (labextension/node_modules)"
    (cd "$SRC" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_hash" > "$SRC/node_modules/.xjit-lock-hash"
fi

want="$(source_hash)"
if [[ "$FORCE" != "--force" && -f "$OUT/package.json" && "$(cat "$OUT/.build-hash" 2>/dev/null || true)" == "$want" ]]; then
    log "up to date ($want)"
    exit 0
fi

CACHE="${XJIT_LABEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xjit-labextension}/$want"
if [[ "$FORCE" != "--force" && -f "$CACHE/package.json" && -f "$CACHE/.build-hash" ]]; then
    log "reusing cached build $CACHE"
    rm -rf "$OUT"
    mkdir -p "$(dirname "$OUT")"
    cp -r "$CACHE" "$OUT"
    exit 0
fi

CORE="$("$PY" -c 'import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), "staging"))')"
log "building (tsc + webpack against $CORE)"
rm -rf "$OUT" "$SRC/lib" "$SRC/tsconfig.tsbuildinfo"
(
    cd "$SRC"
    npx --no-install tsc -p .
    node node_modules/@jupyterlab/builder/lib/build-labextension.js --core-path "$CORE" .
)
cat > "$OUT/install.json" <<'JSON'
{"packageManager": "python", "packageName": "xjit", "uninstallInstructions": "Use your Python package manager (pip, conda, etc.) to uninstall the package xjit"}
JSON
echo "$want" > "$OUT/.build-hash"
if mkdir -p "$(dirname "$CACHE")" 2>/dev/null; then
    rm -rf "$CACHE.tmp.$$" && cp -r "$OUT" "$CACHE.tmp.$$" && mv -T "$CACHE.tmp.$$" "$CACHE" 2>/dev/null \
        || rm -rf "$CACHE.tmp.$$"
fi
log "built $OUT ($want)"
