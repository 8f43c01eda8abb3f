#!/bin/bash
# hunt.sh: runs the bug-hunt campaigns of results/long/hunts.txt (one per line: name, scenario,
# seed, seeds, strategy, buggify, variants, built), each as
#   nice -n 19 $B run --scenario S [--variant V]... --seeds N --seed F --strategy ST [--buggify on] --parallel 1 --out $HUNT/NAME
# one after another, in the file's order. A campaign whose folder is marked done is skipped, one
# with a campaign.json is resumed (simrun run --resume), so the script is resumable: re-run it.
# Each campaign appends "NAME rc=N time" to $HUNT/progress.txt and is marked done unless it was
# interrupted (130) or killed (137).
#
#   results/long/hunt.sh [-n] [-b SIMRUN] [-d DIR] [PATTERN...]
#
# PATTERN (a shell glob) selects the campaigns whose name or built commit matches, e.g.
# 'fixed6-*' or 845f3c1; none selects every line. -n prints the commands and runs nothing.
# -b is the simrun binary (default: built from the checkout's HEAD into DIR/simrun-HASH); the
# campaigns of 2026-12-01 each ran the binary of their "built" column. -d is the folder the
# campaigns are written to (default campaign-out/hunt). Afterwards
#   go run ./cmd/resultsdoc -collect hunt -built COMMIT DIR/NAME...
# puts each campaign's summary into results/long/campaigns.jsonl and renders the table of
# results/long/README.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
list=$here/hunts.txt
dry=0 B=${B:-} HUNT=${HUNT:-campaign-out/hunt}
while getopts nb:d: o; do
  case $o in
    n) dry=1 ;;
    b) B=$OPTARG ;;
    d) HUNT=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

selected() { # NAME BUILT: whether a pattern selects the line
  local name=$1 built=$2 p; shift 2
  [ ${#pats[@]} -eq 0 ] && return 0
  for p in "${pats[@]}"; do
    # shellcheck disable=SC2053
    [[ $name == $p || $built == $p ]] && return 0
  done
  return 1
}
pats=("$@")

if [ $dry = 0 ]; then
  mkdir -p "$HUNT"
  if [ -z "$B" ]; then
    B=$HUNT/simrun-$(git -C "$here" rev-parse --short HEAD)
    [ -x "$B" ] || (cd "$here/../.." && go build -o "$B" ./cmd/simrun) || exit 1
  fi
  case $B in /*) ;; *) B=$PWD/$B ;; esac
  cd "$HUNT" || exit 1
fi

n=0
while read -r name scenario seed seeds strategy buggify variants built rest; do
  case $name in ''|'#'*) continue ;; esac
  if [ -z "$built" ] || [ -n "$rest" ]; then echo "hunt.sh: $list: bad line for $name" >&2; exit 2; fi
  selected "$name" "$built" || continue
  n=$((n + 1))
  args=(--scenario "$scenario")
  if [ "$variants" != - ]; then
    IFS=, read -ra vs <<< "$variants"
    for v in "${vs[@]}"; do args+=(--variant "$v"); done
  fi
  args+=(--seeds "$seeds" --seed "$seed" --strategy "$strategy")
  [ "$buggify" = on ] && args+=(--buggify on)
  if [ $dry = 1 ]; then echo "simrun run ${args[*]} --parallel 1 --out $name"; continue; fi
  if grep -q '^DONE' "$name/.done" 2>/dev/null; then continue; fi
  if [ -f "$name/campaign.json" ]; then nice -n 19 "$B" run --resume "$name" --parallel 1 > "$name.log" 2>&1
  else nice -n 19 "$B" run "${args[@]}" --parallel 1 --out "$name" > "$name.log" 2>&1; fi
  rc=$?
  echo "$name rc=$rc $(date -u +%FT%TZ)" >> progress.txt
  [ $rc -ne 130 ] && [ $rc -ne 137 ] && echo DONE > "$name/.done"
done < "$list"
if [ $n = 0 ]; then echo "hunt.sh: no campaign of $list matches ${pats[*]:-}" >&2; exit 2; fi
[ $dry = 1 ] || echo "ALLDONE $(date -u +%FT%TZ)" >> progress.txt
