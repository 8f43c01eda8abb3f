#!/bin/sh
# run.sh OUT CMD...: run a benchmark command and write its output to OUT
# in the Go benchmark format, headed by the command, the commit and the
# machine as configuration lines (benchfmt keeps them as file config).
set -eu
out=$1
shift
tmp=$out.tmp
{
	"$(dirname "$0")/header.sh" "$@"
	"$@"
} >"$tmp"
mv "$tmp" "$out"
