#!/usr/bin/env bash
# The answer-key audit over fresh worlds: a full corpus per seed, every task's key re-derived
# from the world and the payer rules by code that imports no template. Exits non-zero on any
# disagreement. SEEDS defaults to twenty seeds the built-in corpus does not use.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
SEEDS=${SEEDS:-"$(seq -s ' ' 1 20)"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for seed in $SEEDS; do
  "$BIN/endstate" corpus generate --seed "$seed" --count 63 --out "$work/$seed" >/dev/null
  if line=$("$BIN/endstate" corpus audit "$work/$seed" 2>&1 | tail -1); then
    echo "seed $seed: $line"
  else
    echo "seed $seed: $line"
    failed=1
  fi
done
# Every record of the same worlds, drawn by a template or not.
world_seeds=()
for seed in $SEEDS; do world_seeds+=(--world-seed "$seed"); done
if ! "$BIN/endstate" corpus audit "${world_seeds[@]}"; then
  failed=1
fi
"$BIN/endstate" corpus audit builtin | tail -1
exit $failed
