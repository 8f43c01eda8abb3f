# hunt-lib.sh: sourced by run-hunt*.sh. run DIR ARGS... runs `$B run ARGS... --out DIR` (one
# process, nice 19, --parallel 1), or resumes DIR when it holds a campaign already, unless DIR
# finished before; it appends "DIR rc=N time" to $PROGRESS and marks DIR done unless the
# campaign was interrupted (130) or killed (137). B is the simrun binary, PROGRESS the log.
run() {
  local d=$1; shift
  if grep -q "^DONE" "$d/.done" 2>/dev/null; then return; fi
  if [ -f "$d/campaign.json" ]; then nice -n 19 "$B" run --resume "$d" --parallel 1 > "$d.log" 2>&1
  else nice -n 19 "$B" run "$@" --parallel 1 --out "$d" > "$d.log" 2>&1; fi
  local rc=$?
  echo "$d rc=$rc $(date -u +%FT%TZ)" >> "$PROGRESS"
  [ $rc -ne 130 ] && [ $rc -ne 137 ] && echo DONE > "$d/.done"
}
