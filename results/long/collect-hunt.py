#!/usr/bin/env python3
"""collect-hunt.py HUNT_DIR OUT_DIR: copies each finished campaign's summary.txt,
summary.json and campaign.json from HUNT_DIR (hunt.sh -d HUNT_DIR) into OUT_DIR/<campaign>/
(results.jsonl stays out: large) and prints the markdown table of results/long/README.md."""
import json, os, shutil, sys

hunt, out = sys.argv[1], sys.argv[2]
rows = []
for d in sorted(os.listdir(hunt)):
    src = os.path.join(hunt, d)
    if not os.path.isfile(os.path.join(src, 'summary.json')):
        continue
    s = json.load(open(os.path.join(src, 'summary.json')))
    done = os.path.isfile(os.path.join(src, '.done'))
    os.makedirs(os.path.join(out, d), exist_ok=True)
    for f in ('summary.txt', 'summary.json', 'campaign.json'):
        if os.path.isfile(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(out, d, f))
    v = s['verdicts']
    cmd = s['command']
    strategy = cmd.split('--strategy ')[1].split()[0] if '--strategy ' in cmd else 'random'
    variant = cmd.split('--variant ')[1].split()[0] if '--variant ' in cmd else 'fixed'
    bug = 'on' if '--buggify on' in cmd else 'off'
    scen = cmd.split('--scenario ')[1].split()[0] if '--scenario ' in cmd else '?'
    first = cmd.split('--seed ')[1].split()[0] if '--seed ' in cmd else '0'
    wall = s['wall_ns'] / 1e9
    per_h = s['seeds'] / (wall / 3600) / max(s['parallel'], 1) if wall > 0 else 0
    fails = '; '.join(f"{f['scenario']} seed {f['seed']}: {f['verdict']} [{', '.join(f.get('checks') or [])}]" for f in s.get('failures') or [])
    rows.append((d, scen, variant, strategy, bug, first, s['seeds'], s['planned_seeds'], v.get('pass', 0), v.get('safety', 0),
                 v.get('liveness', 0), v.get('crash', 0), v.get('budget', 0) + v.get('unknown', 0), per_h, done, fails, s))
print('| campaign | scenario | variant | strategy | BUGGIFY | first seed | seeds run | pass | safety | liveness | crash | budget/unknown | seeds per core-hour | failures |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
tot = [0] * 6
for r in rows:
    (d, scen, variant, strategy, bug, first, seeds, planned, p, sa, li, cr, bu, per_h, done, fails, s) = r
    state = ' (interrupted; resumable)' if s.get('interrupted') else ('' if done else ' (running)')
    run = f'{seeds}' if done and seeds == planned else f'{seeds} of {planned}' + state
    print(f'| `{d}` | {scen} | {variant} | {strategy} | {bug} | {first} | {run} | {p} | {sa} | {li} | {cr} | {bu} | {per_h:,.0f} | {fails or "-"} |')
    for i, x in enumerate((seeds, p, sa, li, cr, bu)):
        tot[i] += x
print(f'| all | | | | | | {tot[0]} | {tot[1]} | {tot[2]} | {tot[3]} | {tot[4]} | {tot[5]} | | |')
