#!/bin/bash
# Campaigns with scheduler.timer_lead: 100us (env.PreciseWall's default lead) under the whole
# harness; each NAME-lead.yaml here is the embedded scenario NAME plus that scheduler block.
# Binary built from ed7501d: go build -o /tmp/simrun-lead ./cmd/simrun
# (The committed run wrote smoke's two campaigns to one folder in turn and copied each away
# before the next; this script gives them separate folders.)
set -u
cd "$(dirname "$0")"
B=${SIMRUN:-/tmp/simrun-lead}
mkdir -p /tmp/lead-out
run() { name=$1 tag=$2 n=$3; shift 3; out=/tmp/lead-out/$name-lead-$tag
  rm -rf "$out"; $B run --scenario $name-lead.yaml --seeds $n --parallel 1 --out "$out" "$@" > "$out.log" 2>&1
  echo "$name $tag $* rc=$?" >> /tmp/lead-out/progress.txt; }
run smoke shared 300
run swarm fixed 500
run failovers fixed 100
run expiries fixed 100
run savepoint-storm fixed 20
run smoke leader-follower 300 --variant design=leader-follower
