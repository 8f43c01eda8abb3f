#!/bin/sh
# run.sh BEFORE AFTER: the interleaved trigger run (bench/side.sh -r 2
# -n 300: every design x pipelines cell, the default env and the JDK peer
# back to back, 2 rounds, 300 firings per cell) at commit BEFORE and at
# commit AFTER, one after the other, each from a detached worktree of that
# commit; then the tables of each (bench/cmd/plot of the AFTER commit, as
# it has the CPU-per-firing goal row). Writes before/ and after/ here:
# trigger-precise.txt (Go), trigger-jdk.txt (JDK peer), tables.md and the
# plot's SVGs. Run from the repository root. The files committed here
# came from BEFORE=3356085 (before issue 27's item 1) and AFTER as given
# in their command/commit lines, on the shared 2-core machine under heavy
# load (the "# load:" lines: CPU pressure some avg10 near 98%, load
# average 17-21).
set -eu
before=$1 after=$2
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arm in before after; do
	eval commit=\$$arm
	git worktree add -q --detach "$tmp/$arm" "$commit"
	mkdir -p "$dir/$arm"
	(cd "$tmp/$arm" && GO=go nice bench/side.sh -r 2 -n 300 "$dir/$arm/trigger-precise.txt" "$dir/$arm/trigger-jdk.txt")
done
git worktree add -q --detach "$tmp/plot" "$after"
for arm in before after; do
	(cd "$tmp/plot" && go run ./bench/cmd/plot -dir "$dir/$arm" >"$dir/$arm/tables.md")
done
for arm in before after plot; do git worktree remove --force "$tmp/$arm"; done
