#!/usr/bin/env bash
# Set up (idempotent) and run the main job.
# For now the main job is the engine demo (demos/demo_engine.py); the notebook
# layer will later make it start JupyterLab.
#   bash scripts/main.sh              # set up + run the demo
#   bash scripts/main.sh --headless   # same, never opening a browser/GUI
# Any other arguments are passed on to the demo.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

HEADLESS=0
ARGS=()
for arg in "$@"; do
    case "$arg" in
        --headless) HEADLESS=1 ;;
        -h|--help)
            sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0 ;;
        *) ARGS+=("$arg") ;;
    esac
done
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    HEADLESS=1
fi
export XJIT_HEADLESS="$HEADLESS"

bash scripts/setup.sh

DEMO="demos/demo_engine.py"
if [[ ! -f "$DEMO" ]]; then
    echo "[main] $DEMO not found" >&2
    exit 1
fi
exec "$ROOT/.venv/bin/python" "$DEMO" ${ARGS[@]+"${ARGS[@]}"}
