#!/bin/sh
# header.sh CMD...: the configuration lines that head every results/bench
# file: the command, the commit (with -dirty when bench, core, sim, peer,
# go.mod, go.sum or the Makefile differ from it), the machine and the date.
echo "command: $*"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- bench core sim peer go.mod go.sum Makefile 2>/dev/null || echo -dirty)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(uname -sr), $(go env GOVERSION)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
