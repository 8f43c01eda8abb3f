#!/bin/sh
# shard.sh I N OUT [simrun run flags...]
#
# Runs shard I of N of a campaign into OUT/shard-I with simrun, or resumes
# it when that folder already holds a campaign (a retried pod, a killed
# local process): the same layout on Kubernetes (the image's entrypoint,
# with I from JOB_COMPLETION_INDEX), on GitHub Actions and in
# 'make campaign'. A failing seed is a result, written to the folder, not a
# failure of the shard: exits 1-4 (safety, liveness, crash, budget) become
# 0, and the merge step reports the campaign's verdict. Usage errors (64)
# and interruptions (130) still fail the shard, so the engine retries it.
# SIMRUN names the binary (default: simrun on PATH).
set -u
if [ $# -lt 3 ]; then
	echo "usage: shard.sh I N OUT [simrun run flags...]" >&2
	exit 64
fi
i=$1 n=$2 out=$3
shift 3
simrun=${SIMRUN:-simrun}
dir="$out/shard-$i"
if [ -f "$dir/campaign.json" ]; then
	$simrun run --resume "$dir"
else
	$simrun run "$@" --shard "$i/$n" --out "$dir"
fi
code=$?
echo "shard $i/$n: simrun exit $code, results in $dir" >&2
if [ "$code" -le 4 ]; then
	exit 0
fi
exit "$code"
