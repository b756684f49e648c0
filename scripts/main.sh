#!/usr/bin/env bash
# Set up (idempotent) and run the main job: JupyterLab on the tour notebook.
#   bash scripts/main.sh              # set up + open JupyterLab on demos/01_tour.ipynb
#   bash scripts/main.sh --headless   # set up + execute every demo notebook with a real
#                                     # kernel and write demos/NAME.html next to each
# Other arguments are passed on to JupyterLab. JupyterLab serves on
# http://localhost:8888 (the token link is printed); Ctrl-C stops it. As
# root (a container) it is started with --allow-root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

HEADLESS=0
ARGS=()
for arg in "$@"; do
    case "$arg" in
        --headless) HEADLESS=1 ;;
        -h|--help)
            sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0 ;;
        *) ARGS+=("$arg") ;;
    esac
done

bash scripts/setup.sh

if [[ "$HEADLESS" == 1 ]]; then
    "$ROOT/.venv/bin/python" demos/demo_engine.py
    exec "$ROOT/.venv/bin/python" scripts/run_demos.py
fi
if [[ "$(id -u)" == 0 ]]; then
    ARGS=(--allow-root ${ARGS[@]+"${ARGS[@]}"})  # JupyterLab refuses to run as root without it
fi
exec "$ROOT/.venv/bin/jupyter" lab demos/01_tour.ipynb ${ARGS[@]+"${ARGS[@]}"}
