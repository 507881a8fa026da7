#!/usr/bin/env bash
# The main job on the embedded default, with no keys and no network:
#   1. the reference trajectories (one task per template) replayed, each null attempt and each
#      mutation checked: proof the tasks are solvable and discriminating;
#   2. the ceiling: the reference agent plays every built-in task's own trajectory (a
#      validation run, never a score) — with no judge, every task it finishes passes;
#   3. the floor: the null agent over the built-in corpus, the run every report shows beside a
#      score. It comes last so its report and run directory are what the screen ends on.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
mkdir -p runs
"$BIN/endstate" corpus validate "$("$BIN/python" -c 'from endstate.builtin import builtin_corpus_path as p; print(p())')" \
  --per-template 1 --workers 2
echo
echo "== The ceiling: the reference agent (validation, not a score) =="
"$BIN/endstate" run --agent reference:builtin --workers 2 --out runs
echo
echo "== The floor: the null agent =="
"$BIN/endstate" run --agent null --workers 2 --out runs
