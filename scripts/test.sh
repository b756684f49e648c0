#!/usr/bin/env bash
# Set up (idempotent) and run the full test suite; extra args go to pytest.
#   bash scripts/test.sh                 # everything
#   bash scripts/test.sh -k jit -x       # a subset
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

set +e
"$ROOT/.venv/bin/python" -m pytest tests -q "$@"
rc=$?
set -e
exit $rc
