#!/usr/bin/env bash
# run.sh SEATUNNEL_DIR: run ckptsim's stress reproductions of the scheduler-level PRESENT findings
# (F026: cancelAll drops a concurrently scheduled task; F010: close leaves futures that never
# complete) on SeaTunnel's own checkpoint scheduler classes, read from the checkout given, and on
# copies patched as results/findings/upstream/026.md and 010.md propose. Prints a result table.
#
# Needs javac and java (OpenJDK 17) and perl. No upstream code lives in this repository: the
# script copies the package org.apache.seatunnel.engine.server.checkpoint.scheduler (its three
# files SharedCheckpointScheduler, PipelineCheckpointScheduler, PipelineCheckpointTask, PR #12165)
# out of SEATUNNEL_DIR into a temporary directory and compiles it there against ckptsim's stubs
# (peer/upstream/stubs) of what it imports: MDCTracer (identity), the shaded Guava
# ThreadFactoryBuilder, Lombok's @Slf4j and an SLF4J logger.
#
# What the copy changes besides the patches: Lombok is not run. Each class annotated @Slf4j gets
# the one field Lombok would generate (a static final org.slf4j.Logger named log), inserted by this
# script; the annotation stays and compiles against a stub. Any other import outside java.* and
# the stubs stops the script (exit 2) and names it: the check then needs more of upstream than it
# stubs.
#
# Patches (each applied to its own copy; each edit must match exactly once, else that row reads
# "not run: the patch did not apply" and the other rows still run):
#   F026  PipelineCheckpointScheduler.cancelAll: delete the trailing outstanding.clear().
#   F010  SharedCheckpointScheduler gets a concurrent set `live` of unsettled tasks and cancels
#         every task in it at the end of close(), after the two shutdownNow() calls;
#         PipelineCheckpointScheduler.schedule registers the task in it just before adding it to
#         outstanding, and the task's settle callback removes it from both.
#
# Environment: F026_ITER (default 200), F010_ITER (default 25) iterations; SEATUNNEL_COMMIT names
# the upstream revision in the table when SEATUNNEL_DIR is not a git checkout.
# Exit status: 0 when every row was printed (whatever it found), 1 on a usage or build error,
# 2 when the package imports something not stubbed here.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
pkg=org/apache/seatunnel/engine/server/checkpoint/scheduler
files=(SharedCheckpointScheduler PipelineCheckpointScheduler PipelineCheckpointTask)

die() {
	echo "run.sh: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: run.sh SEATUNNEL_DIR"
src=$1
[ -d "$src" ] || die "$src: not a directory"
for tool in javac java perl sha256sum; do
	command -v "$tool" >/dev/null || die "$tool not found (OpenJDK 17 and perl are needed)"
done

# The scheduler package: the directory under src/main/java holding SharedCheckpointScheduler.java.
scs=$(find "$src" -path "*/src/main/java/$pkg/SharedCheckpointScheduler.java" -print | sort | head -n 1)
[ -n "$scs" ] || die "$src: no src/main/java/$pkg/SharedCheckpointScheduler.java"
pkgdir=$(dirname "$scs")
for f in "${files[@]}"; do
	[ -f "$pkgdir/$f.java" ] || die "$pkgdir: $f.java missing"
done

if rev=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null); then
	:
else
	rev=${SEATUNNEL_COMMIT:-unknown (not a git checkout; set SEATUNNEL_COMMIT)}
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# java: $(java -version 2>&1 | head -n 1); cpus: $(nproc)"
echo "# upstream package: ${pkgdir#"$src"/}"
for f in "${files[@]}"; do
	sum=$(sha256sum "$pkgdir/$f.java" | cut -c1-16)
	last=$(git -C "$src" log -1 --format=%h -- "$pkgdir/$f.java" 2>/dev/null || true)
	echo "#   $f.java sha256:$sum lines:$(wc -l <"$pkgdir/$f.java")${last:+ last-commit:$last}"
done
extra=$(ls "$pkgdir"/*.java | xargs -n1 basename | grep -vxF -e SharedCheckpointScheduler.java \
	-e PipelineCheckpointScheduler.java -e PipelineCheckpointTask.java || true)
[ -z "$extra" ] || echo "#   also in the package, compiled too: $(echo $extra)"

# Imports this script can satisfy: java.*, and the stubs' own types.
stubbed='^import (java\.|lombok\.extern\.slf4j\.Slf4j;|org\.apache\.seatunnel\.api\.tracing\.MDCTracer;|org\.apache\.seatunnel\.shade\.com\.google\.common\.util\.concurrent\.ThreadFactoryBuilder;|org\.slf4j\.)'
missing=$(grep -h '^import ' "$pkgdir"/*.java | grep -vE "$stubbed" | sort -u || true)
if [ -n "$missing" ]; then
	echo "run.sh: the scheduler package imports what peer/upstream/stubs does not stub:" >&2
	echo "$missing" >&2
	exit 2
fi

# edit FILE EXPR WHAT: apply the perl substitution EXPR to FILE; it must match exactly once.
edit() {
	perl -0777 -i -pe "\$n += ($2); END { exit(\$n == 1 ? 0 : 3) }" "$1" && return
	echo "run.sh: patch did not apply ($3) to $(basename "$1"): upstream changed; compare with the report" >&2
	return 1
}

# copy NAME: a compilable copy of the package under $work/NAME/src.
copy() {
	local dir=$work/$1/src/$pkg f
	mkdir -p "$dir"
	cp "$pkgdir"/*.java "$dir"/
	for f in "$dir"/*.java; do
		grep -q '^@Slf4j' "$f" || continue
		local cls
		cls=$(basename "$f" .java)
		edit "$f" "s/^((?:public |final |abstract )*class $cls\\b[^{]*\\{\\n)/\$1    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger($cls.class);\\n/m" "lombok log field" || exit 1
	done
}

patch026() {
	edit "$1/PipelineCheckpointScheduler.java" 's/^[ \t]*outstanding\.clear\(\);[ \t]*\n//m' "F026: delete outstanding.clear()"
}

patch010() {
	local scs=$1/SharedCheckpointScheduler.java pcs=$1/PipelineCheckpointScheduler.java
	edit "$scs" 's/^((?:public )?class SharedCheckpointScheduler\b[^{]*\{\n)/$1    final java.util.Set<PipelineCheckpointTask> live = java.util.concurrent.ConcurrentHashMap.newKeySet();\n/m' "F010: live set"
	edit "$scs" 's/^([ \t]*dispatcher\.shutdownNow\(\);\n)/$1        for (PipelineCheckpointTask t : live.toArray(new PipelineCheckpointTask[0])) {\n            t.cancel(false);\n        }\n/m' "F010: cancel live tasks in close()"
	edit "$pcs" 's/outstanding::remove/t -> { outstanding.remove(t); parent.live.remove(t); }/' "F010: settle deregisters"
	edit "$pcs" 's/^([ \t]*)(outstanding\.add\(task\);)/$1parent.live.add(task);\n$1$2/m' "F010: schedule registers"
}

javac_q() { javac -nowarn -Xlint:none "$@" 2>&1 | grep -v '^Note: ' >&2 || true; }

mkdir -p "$work/stubs" "$work/test"
javac_q -d "$work/stubs" $(find "$here/stubs" -name '*.java')
build() { # NAME
	mkdir -p "$work/$1/classes"
	javac_q -cp "$work/stubs" -d "$work/$1/classes" "$work/$1/src/$pkg"/*.java
	[ -f "$work/$1/classes/$pkg/SharedCheckpointScheduler.class" ] || die "build of $1 failed"
}
copy upstream && build upstream
# A patch that does not apply (upstream changed those lines) skips its row, not the others.
copy fix026 && if patch026 "$work/fix026/src/$pkg"; then build fix026; else rm -rf "${work:?}/fix026"; fi
copy fix010 && if patch010 "$work/fix010/src/$pkg"; then build fix010; else rm -rf "${work:?}/fix010"; fi
javac_q -cp "$work/upstream/classes:$work/stubs" -d "$work/test" $(find "$here/src" -name '*.java')
[ -f "$work/test/ckptsim/upstream/SchedulerFindings.class" ] || die "build of the stress tests failed"

row() { # FINDING BUILD PATCHED ITER
	local out bad n left total verdict
	if [ ! -d "$work/$2" ]; then
		printf '| %s | %s | %s | not run: the patch did not apply |\n' "$1" "$rev" "$3"
		return
	fi
	out=$(java -Xmx256m -cp "$work/$2/classes:$work/stubs:$work/test" ckptsim.upstream.SchedulerFindings "$1" "$4")
	read -r _ bad n left total <<<"$out"
	if [ "$bad" -gt 0 ]; then verdict=VIOLATED; else verdict=held; fi
	printf '| %s | %s | %s | %s: %s of %s iterations, %s of %s tasks unsettled |\n' \
		"$1" "$rev" "$3" "$verdict" "$bad" "$n" "$left" "$total"
}

echo
echo "| finding | upstream classes (commit) | patched | result |"
echo "|---|---|---|---|"
row F026 upstream no "${F026_ITER:-200}"
row F026 fix026 "yes (026.md: no clear())" "${F026_ITER:-200}"
row F010 upstream no "${F010_ITER:-25}"
row F010 fix010 "yes (010.md: close cancels live tasks)" "${F010_ITER:-25}"
