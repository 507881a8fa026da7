#!/usr/bin/env bash
# Vendor the public training corpus and score the end states recorded from the benchmark's
# own portals (offline scoring of supplied states).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
SHARED=${SHARED:-../shared}
CORPUS_SRC="$SHARED/corpora/hab-v2-train"
STATES="$SHARED/fixtures/hab-v2-states"
if [ ! -d "$CORPUS_SRC" ] || [ ! -d "$STATES" ]; then
  echo "score-recorded: $CORPUS_SRC and $STATES are needed (set SHARED=...)" >&2
  exit 1
fi
if [ ! -f corpora/hab-v2-train/endstate.lock.json ]; then
  "$BIN/endstate" corpus import "$CORPUS_SRC" --name hab-v2-train
fi
"$BIN/endstate" corpus verify corpora/hab-v2-train
mkdir -p runs/recorded
"$BIN/endstate" score --corpus corpora/hab-v2-train --states "$STATES" \
  --pattern '*.solved.state.json' --only-supplied \
  --out runs/recorded/records.jsonl --report runs/recorded/report.txt --html runs/recorded/report.html
echo "records: runs/recorded/records.jsonl  report: runs/recorded/report.txt"
