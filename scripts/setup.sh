#!/usr/bin/env bash
# Idempotent set-up: a .venv/ at the repo root with xjit installed editable
# (pip install -e '.[notebook,test]'). Quick when nothing changed: a stamp in
# .venv holds the hash of pyproject.toml (and of this script); the install reruns
# only when that hash changes or `import xjit` stops resolving to this checkout.
#
# The extras (pyproject.toml) are always notebook,test: everything the README's
# commands need (the notebook layer, the test suite, and the ecosystem libraries
# tests/ecosystem/ runs under the takeover). XJIT_EXTRAS adds more, e.g.
#   XJIT_EXTRAS=compare bash scripts/setup.sh    # + the real JAX oracle
# (The engine alone, without JupyterLab, is a plain `pip install .`.)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="$ROOT/.venv"
PY="$VENV/bin/python"
EXTRAS="notebook,test${XJIT_EXTRAS:+,$XJIT_EXTRAS}"
STAMP="$VENV/.xjit-setup-stamp"

log() { echo "[setup] $*" >&2; }

pick_python() {
    local cand
    for cand in python3.11 python3 python; do
        if command -v "$cand" >/dev/null 2>&1 &&
           "$cand" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
            echo "$cand"
            return 0
        fi
    done
    return 1
}

if [[ ! -x "$PY" ]]; then
    BASE_PY="$(pick_python)" || { log "error: Python >= 3.11 not found"; exit 1; }
    log "creating .venv with $BASE_PY"
    rm -rf "$VENV"
    "$BASE_PY" -m venv "$VENV"
    "$PY" -m pip install --quiet --upgrade pip
fi

# (the C source too: the editable install compiles it into place)
want="$( { cat pyproject.toml setup.py "$ROOT/scripts/setup.sh" "$ROOT"/core/xjit/_src/lib/*.c; echo "extras=$EXTRAS"; } | sha256sum | cut -d' ' -f1)"
have="$(cat "$STAMP" 2>/dev/null || true)"

# Is the editable install in place and pointing at this checkout? (Only checked
# once core/xjit/__init__.py exists; before that there is nothing to import.)
installed_ok() {
    "$PY" - "$ROOT" <<'PYEOF' >/dev/null 2>&1
import importlib.metadata as md, os, sys
root = os.path.realpath(sys.argv[1])
md.version("xjit")
if os.path.exists(os.path.join(root, "core", "xjit", "__init__.py")):
    import importlib.util
    spec = importlib.util.find_spec("xjit")
    assert spec is not None and spec.origin is not None
    assert os.path.realpath(spec.origin).startswith(root + os.sep), spec.origin
PYEOF
}

# The notebook layer: the prebuilt JupyterLab extension (rebuilt only when its
# sources change, see scripts/build_labextension.sh), linked into the venv's
# labextensions folder (as `jupyter labextension develop` would), and Debian's
# chromium for the browser test. Failures here warn instead of stopping the
# engine's set-up; the tests that need them then fail (or skip) saying why.
notebook_layer() {
    [[ -d "$ROOT/labextension" ]] || return 0
    local built="$ROOT/kernel_ext/xjit_kernel_ext/labextension"
    local dest="$VENV/share/jupyter/labextensions/xjit-lab"
    if bash "$ROOT/scripts/build_labextension.sh"; then
        if [[ "$(readlink "$dest" 2>/dev/null || true)" != "$built" ]]; then
            mkdir -p "$(dirname "$dest")" && rm -rf "$dest" && ln -s "$built" "$dest"
        fi
    else
        log "warning: building the lab extension failed; the xjit panel will be missing"
    fi
    if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
        local sudo=""
        [[ "$(id -u)" == 0 ]] || sudo="sudo -n"
        log "installing Debian chromium (for tests/test_lab_browser.py)"
        { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium; } \
            >/dev/null 2>&1 || log "warning: could not install chromium; the browser test will be skipped"
    fi
}

if [[ "$want" == "$have" ]] && installed_ok; then
    notebook_layer
    log "up to date ($VENV)"
    exit 0
fi

# The dispatch fast path is a C extension (setup.py): it needs a C compiler and
# Python's headers. Debian's gcc and python3-dev provide them where missing.
need_c_build_tools() {
    command -v cc >/dev/null 2>&1 || return 0
    "$PY" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' || return 0
    return 1
}
if need_c_build_tools && command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [[ "$(id -u)" == 0 ]] || sudo="sudo -n"
    log "installing Debian gcc and python3-dev (to build the dispatch fast path)"
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gcc libc6-dev python3-dev; } \
        >/dev/null 2>&1 || log "warning: could not install a C compiler; the install below will fail"
fi

# setuptools needs the package root to exist even before any package is in it.
mkdir -p "$ROOT/core"
log "installing xjit editable with extras [$EXTRAS] into .venv"
"$PY" -m pip install --quiet --upgrade pip
"$PY" -m pip install --quiet -e ".[$EXTRAS]"
installed_ok || { log "error: editable install of xjit did not take"; exit 1; }
echo "$want" > "$STAMP"
notebook_layer
log "done"
