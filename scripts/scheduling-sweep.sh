#!/usr/bin/env bash
# The scheduling templates over many draws: for each seed, generate the cases
# (`endstate corpus scheduling --no-starters`: the audit runs as they are written) and validate
# every one of them (`endstate corpus validate`: reference meets the oracle, null fails, every
# forbidden effect is caught). Not part of `make test`; run it as `make scheduling-sweep`.
#
#   SEEDS="1 2 3"     the draw seeds (default 1..20)
#   PER_FAMILY=25     cases per family and seed (default 25, the shipped corpus's size)
#   WORKERS=2         cases validated at a time
#   OUT=DIR           where the corpora and each seed's validation table go (default: a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
SEEDS=${SEEDS:-$(seq 1 20)}
PER_FAMILY=${PER_FAMILY:-25}
WORKERS=${WORKERS:-2}
OUT=${OUT:-$(mktemp -d -t scheduling-sweep.XXXXXX)}
mkdir -p "$OUT"
failed=()
for seed in $SEEDS; do
  corpus="$OUT/s$seed"
  rm -rf "$corpus"
  if ! "$BIN/endstate" corpus scheduling --seed "$seed" --per-family "$PER_FAMILY" \
      --no-starters --out "$corpus" 2>"$OUT/s$seed.generate.txt"; then
    echo "seed $seed: generation failed: $(tail -n 1 "$OUT/s$seed.generate.txt")"
    failed+=("$seed")
    continue
  fi
  if "$BIN/endstate" corpus validate "$corpus" --workers "$WORKERS" \
      >"$OUT/s$seed.txt" 2>"$OUT/s$seed.progress.txt"; then
    echo "seed $seed: $(tail -n 1 "$OUT/s$seed.txt")"
  else
    echo "seed $seed: FAILED: $(tail -n 1 "$OUT/s$seed.txt")"
    failed+=("$seed")
  fi
done
echo "tables in $OUT"
if ((${#failed[@]})); then
  echo "failed seeds: ${failed[*]}"
  exit 1
fi
echo "every seed valid: $(echo "$SEEDS" | wc -w) seed(s)"
