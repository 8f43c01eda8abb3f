#!/bin/sh
# run.sh [SECONDS]: a short run of BenchmarkIdleMember and the JDK peer's
# idle mode, every cell (4 designs x 10/100/500 pipelines x 1 s/10 s
# intervals; env=precise, env=wall and env=jdk, leader-follower without a
# JDK peer), one fresh process per cell and side, SECONDS of window per
# cell (default 3; bench/idle.sh's default of 60 is the record) after one
# interval of warm-up. Writes idle-go.txt and idle-jdk.txt here. Run from
# the repository root on a clean tree.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
GO=go nice bench/idle.sh -w "${1:-3}" "$dir/idle-go.txt" "$dir/idle-jdk.txt"
