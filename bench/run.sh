#!/bin/sh
# run.sh OUT CMD...: run a benchmark command and write its output to OUT
# in the Go benchmark format, headed by the command, the commit and the
# machine as configuration lines (benchfmt keeps them as file config).
set -eu
out=$1
shift
tmp=$out.tmp
{
	echo "command: $*"
	echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- bench core sim peer go.mod go.sum Makefile 2>/dev/null || echo -dirty)"
	echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(uname -sr), $(go env GOVERSION)"
	echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
	"$@"
} >"$tmp"
mv "$tmp" "$out"
