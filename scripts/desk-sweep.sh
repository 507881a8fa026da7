#!/usr/bin/env bash
# The example scheduling desk agent (examples/scheduling_desk_agent.py) over every shipped
# scheduling case (`builtin:scheduling`, 300 cases), scored like any agent: the report's
# "By family" table is the pass share per family quoted in docs/scheduling-lab.md. Not part of
# `make test` (about ten minutes on two cores); run it as `make desk-sweep`.
#
#   TASKS='booking-*'   a task id glob (comma-separated) for a part of the corpus (default all)
#   WORKERS=2           attempts at a time
#   OUT=DIR             where the run directory goes (default: a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
WORKERS=${WORKERS:-2}
OUT=${OUT:-$(mktemp -d -t desk-sweep.XXXXXX)}
args=(--corpus builtin:scheduling --workers "$WORKERS" --time-limit 120 --out "$OUT"
      --agent "command:$BIN/python examples/scheduling_desk_agent.py")
if [[ -n "${TASKS:-}" ]]; then
  args+=(--tasks "$TASKS")
fi
"$BIN/endstate" run "${args[@]}"
echo "run directory: $(ls -d "$OUT"/*/ | tail -n 1)"
