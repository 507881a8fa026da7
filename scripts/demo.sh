#!/usr/bin/env bash
# The main job on the embedded default, with no keys and no network:
#   1. the reference trajectories (one task per template) replayed, each null attempt and each
#      mutation checked: proof the tasks are solvable and discriminating;
#   2. the null agent over the built-in corpus: a scored run, the floor every report shows. It
#      comes last so the report and the run directory are what the screen ends on.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
mkdir -p runs
"$BIN/endstate" corpus validate "$("$BIN/python" -c 'from endstate.builtin import builtin_corpus_path as p; print(p())')" \
  --per-template 1 --workers 2
echo
"$BIN/endstate" run --agent null --workers 2 --out runs
