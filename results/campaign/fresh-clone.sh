#!/usr/bin/env bash
# fresh-clone.sh [OUT]: what a newcomer meets on a fresh clone of main (issue 45's must-show),
# as a transcript: (1) one seed of the 20 jobs x 500 pipelines scenario printing its progress in a
# log (every line stamped with the wall seconds since the start; SIGINT at 30 s), (2) a campaign
# given two SIGINTs 0.05 s apart (exit 130, no temporary file left in its results folder), (3)
# `replay --trace` of smoke seed 0 (its line count). Run from a clone's root; OUT defaults to stdout.
set -u
out=${1:-/dev/stdout}
stamp() { t0=$EPOCHREALTIME; while IFS= read -r l; do printf '%6.2fs  %s\n' "$(echo "$EPOCHREALTIME - $t0" | bc)" "$l"; done; }
{
  echo "command: results/campaign/fresh-clone.sh"
  echo "commit: $(git rev-parse --short=7 HEAD)$(git diff --quiet HEAD -- . ':(exclude)results' || echo -dirty)"
  echo "machine: $(nproc) cores, $(uname -sr), $(go version | cut -d' ' -f3)"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  go build -o .fresh-simrun ./cmd/simrun || exit 1
  echo "## 1. one seed of cmd/simrun/testdata/large.yaml (20 jobs x 500 pipelines), stderr a pipe, SIGINT at 30 s"
  timeout -s INT 30 ./.fresh-simrun run cmd/simrun/testdata/large.yaml --seeds 1 2>&1 | stamp
  echo "exit of timeout: ${PIPESTATUS[0]} (124: it sent the signal; simrun's own exit is in its summary above)"
  echo
  echo "## 2. the default campaign into a results folder, two SIGINTs 0.05 s apart after 8 s"
  dir=$(mktemp -d)
  ./.fresh-simrun run --out "$dir/out" >/dev/null 2>"$dir/err" &
  pid=$!
  sleep 8; kill -INT $pid; sleep 0.05; kill -INT $pid 2>/dev/null || echo "(the campaign had ended after the first signal)"
  wait $pid; code=$?
  tail -3 "$dir/err"
  echo "exit: $code"
  echo "files left in the results folder: $(ls "$dir/out" | tr '\n' ' ')"
  echo "temporary files left: $(find "$dir/out" -name '*.tmp*' | wc -l)"
  rm -rf "$dir"
  echo
  echo "## 3. simrun replay --scenario smoke --seed 0 --trace"
  dir=$(mktemp -d)
  ./.fresh-simrun replay --scenario smoke --seed 0 --trace --out "$dir" 2>&1 | grep -E '^(verdict|trace_hash|trace):'
  echo "lines in trace.txt: $(wc -l < "$dir/trace.txt")"
  rm -rf "$dir" .fresh-simrun
} | sed -E "s#$(dirname "$(mktemp -u)")/tmp\.[A-Za-z0-9]+#\$TMPDIR/tmp.X#g" > "$out"
