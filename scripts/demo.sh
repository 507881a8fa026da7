#!/usr/bin/env bash
# The main job on the embedded default, with no keys and no network:
#   1. the null agent over the built-in corpus: a scored run, the floor every report shows;
#   2. the reference trajectories (one task per template) replayed, each null attempt and each
#      mutation checked: proof the tasks are solvable and discriminating.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
mkdir -p runs
"$BIN/endstate" run --agent null --workers 2 --out runs
echo
"$BIN/endstate" corpus validate "$("$BIN/python" -c 'from endstate.builtin import builtin_corpus_path as p; print(p())')" \
  --per-template 1 --workers 2
