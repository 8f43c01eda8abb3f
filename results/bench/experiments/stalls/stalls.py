#!/usr/bin/env python3
"""Process-wide stalls in a Go execution trace (go tool trace -d=parsed output on stdin).

A stall is a stretch longer than 1 ms in which the process recorded no trace event at all
while at least one goroutine was runnable: nothing ran, though there was work and an idle P
(the traced programs here never have more runnable goroutines than Ps for long). Prints
the number of stalls, their total and median length, and how many runnable-to-running
delays exceeded 1 ms."""
import re, sys

pre = re.compile(r'M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)')
tr = re.compile(r'GoID=(\d+) (\w+)->(\w+)')
ev = []
for line in sys.stdin:
    m = pre.match(line)
    if m:
        ev.append((int(m.group(5)), m.group(6)))
ev.sort()
runnable, since, stalls, delays = set(), {}, [], 0
prev = None
for t, rest in ev:
    if prev is not None and t - prev > 1_000_000 and runnable:
        stalls.append(t - prev)
    prev = t
    g = tr.search(rest)
    if not g:
        continue
    gid, _, to = g.groups()
    if to == 'Runnable':
        runnable.add(gid)
        since[gid] = t
    elif gid in runnable:
        runnable.discard(gid)
        if to == 'Running' and t - since[gid] > 1_000_000:
            delays += 1
stalls.sort()
med = stalls[len(stalls) // 2] / 1e6 if stalls else 0
print(f"stalls={len(stalls)} stall-total-ms={sum(stalls)/1e6:.1f} stall-median-ms={med:.2f} runnable-delays>1ms={delays}")
