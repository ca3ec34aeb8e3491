#!/usr/bin/env python3
"""For each lookup the f32 pair at 256M moved (2026-12-07g-data/f32-pair-rows.txt), the distribution of the policy
entry that serves it before and after (autotune best --json on the H100 plain cache of 54c8a56). Run from the
repository root after:
  mkdir -p /tmp/pair/old /tmp/pair/new /tmp/s
  cp kernel_templates/histogram/policy.json /tmp/pair/old/histogram.json   # the policy of 91dabd9
  # the pair fitted beside it (scripts/fit_policy.py on the 2026-12-07g pair log, --update --beside --add-shapes),
  # copied to /tmp/pair/new/histogram.json
  xz -dc bench/results/2026-12-07c-data/h100-tuned-slim-54c8a56.db.xz > /tmp/s/plain.db
"""
import json, re, subprocess, sys, os
sys.path.insert(0, 'bench'); import replay_grid
M = "NVIDIA H100 80GB HBM3|sm_90|132SM|81079MiB"
rows = [l.split() for l in open('bench/results/2026-12-07g-data/f32-pair-rows.txt') if 'new/old' in l]
def best(key, pol):
    env = dict(os.environ, AUTOTUNE_POLICY_DIR=f'/tmp/pair/{pol}')
    out = subprocess.run(['build-portable/bin/autotune', 'best', '--cache', '/tmp/s/plain.db', '--device-model', M,
                          *replay_grid.flags_of(key), '--json'], env=env, capture_output=True, text=True).stdout
    d = json.loads(out)
    sel = [s for s in d['sizes'] if s['selected']][0]
    m = re.search(r'dist=(\w+)', sel['why']); return (m.group(1) if m else '?'), sel['config'], d['predicted_slowdown']
for r in rows:
    ratio, key = r[0], r[-1]
    try:
        o = best(key, "old"); n = best(key, "new")
    except Exception as e:
        print(ratio, key, "no lookup:", e); continue
    print(ratio, key.split('/n=')[0].replace('histogram/',''), key.split('dist=')[1], 'old:', o[0], round(o[2],3), 'new:', n[0], round(n[2],3), 'same' if o[1]==n[1] else '')
