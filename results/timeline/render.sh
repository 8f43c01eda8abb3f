#!/bin/sh
# Renders the example timelines under results/timeline and, where headless
# Chromium is installed, loads each page in it: checks the rendered DOM
# (the failing lane first, the check marked) and takes a screenshot.
#   results/timeline/render.sh            pages and screenshots
#   CHROMIUM=/path/to/chromium ...        another browser binary
# Run from the repository root (make timeline-screenshot does).
set -eu
GO=${GO:-go}
out=results/timeline
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$GO build -o "$tmp/simrun" ./cmd/simrun

# first SCENARIO VARIANT: the first seed of 0-39 that fails (prints it).
first() {
	"$tmp/simrun" run --scenario "$1" --variant "$2" --seeds 40 --parallel 2 --json 2>/dev/null |
		grep -E '"verdict":"(safety|liveness)"' | head -1 | sed -E 's/.*"seed":([0-9]+).*/\1/'
}

# example NAME SCENARIO VARIANT: the first failing seed's artefact
# directory (timeline.html and the porcupine pages it links to) copied to
# $out/NAME; NAME.seed records the seed.
example() {
	name=$1 sc=$2 variant=$3
	seed=$(first "$sc" "$variant")
	if [ -z "$seed" ]; then
		echo "timeline: no seed of $sc ($variant) in 0-39 fails" >&2
		exit 1
	fi
	rc=0
	"$tmp/simrun" replay --scenario "$sc" --seed "$seed" --variant "$variant" --trace=false --json \
		--out "$tmp/$name" >"$tmp/$name.json" || rc=$?
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	cp "$tmp/$name/$sc-seed-$seed/"*.html "$out/$name/"
	echo "go run ./cmd/simrun replay --scenario $sc --seed $seed --variant $variant --timeline FILE   # exit $rc" >"$out/$name/command.txt"
	echo "timeline: $out/$name/timeline.html: $sc seed $seed ($variant), exit $rc"
}
example h1-stale-expiry h1-stale-expiry expiry-fence=none
example swarm swarm deferred-fence=none

chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$chromium" ]; then
	echo "timeline-screenshot: skipped: no headless Chromium (Debian: apt-get install chromium; or set CHROMIUM=)"
	exit 0
fi
for name in h1-stale-expiry swarm; do
	page="file://$PWD/$out/$name/timeline.html"
	flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=$tmp/profile"
	# The DOM as the browser built it: the failing lane's section comes
	# before any collapsed lane, and a check is marked in its drawings.
	# shellcheck disable=SC2086
	"$chromium" $flags --dump-dom "$page" 2>/dev/null >"$tmp/dom.html"
	sect=$(grep -bo '<section class="lane failing"' "$tmp/dom.html" | head -1 | cut -d: -f1)
	det=$(grep -bo '<details class="lane"' "$tmp/dom.html" | head -1 | cut -d: -f1)
	marks=$(grep -o 'class="check-mark"' "$tmp/dom.html" | wc -l)
	if [ -z "$sect" ] || { [ -n "$det" ] && [ "$sect" -gt "$det" ]; } || [ "$marks" -lt 1 ]; then
		echo "timeline-screenshot: $name: the browser's DOM lacks the failing lane first or its check mark" >&2
		exit 1
	fi
	# shellcheck disable=SC2086
	"$chromium" $flags --window-size=1300,1480 --screenshot="$out/$name.png" "$page" 2>/dev/null
	echo "timeline-screenshot: $out/$name.png ($marks check marks in the rendered DOM)"
done
