#!/usr/bin/env bash
# Set up (idempotent) and run the full test suite; extra args go to pytest.
#   bash scripts/test.sh                 # everything
#   bash scripts/test.sh -k jit -x       # a subset
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

# One worker per core, up to 4; a file's tests stay in one worker (module
# fixtures and recorded-case caches are per file). XJIT_TEST_WORKERS=0 runs in
# this process.
workers="${XJIT_TEST_WORKERS:-$(n=$(nproc); echo $(( n < 4 ? n : 4 )))}"
dist=()
[[ "$workers" -gt 1 ]] && dist=(-n "$workers" --dist loadfile)

set +e
if [[ $# -eq 0 ]]; then
    # The JupyterLab browser tests run after the rest, on a quiet machine: under
    # a second worker's load a page reload can outlast their waits.
    "$ROOT/.venv/bin/python" -m pytest tests -q "${dist[@]}" --ignore=tests/test_lab_browser.py
    rc=$?
    "$ROOT/.venv/bin/python" -m pytest tests/test_lab_browser.py -q
    rc2=$?
    [[ $rc -eq 0 ]] && rc=$rc2
else
    "$ROOT/.venv/bin/python" -m pytest tests -q "${dist[@]}" "$@"
    rc=$?
fi
set -e
exit $rc
