#!/usr/bin/env python3
"""Leave-one-out over an H100 preset cache (2026-12-06's h100-preset-slim-1dd52cb.db, its histogram runs re-stamped):
each f32 shape with tuned shapes on both sides at the same size and distribution, its slowdown under the nearest
shape's winner (the family's shape distance), the other side's, and the configuration best on both sides
interpolated in log2(bins).

    loo_bracket.py PRESET_DB
"""
import collections
import math
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
db = sqlite3.connect(sys.argv[1] if len(sys.argv) > 1 else 'p.db')
rows = db.execute("""select p.shape_key, p.n, m.config, m.median_ms from problems p join runs r on r.problem_id=p.id
  join measurements m on m.run_id=r.id where p.family='histogram' and m.status='ok' and p.key like 'histogram/f32/%'""").fetchall()
t = collections.defaultdict(dict)
for shape, n, c, ms in rows: t[(shape, n)][c] = ms
def bins(shape): return int(shape.split('bins=')[1].split('/')[0])
def dist(shape): return shape.split('dist=')[1]
shapes = sorted({s for s, n in t}, key=bins)
out = []
for (s, n), times in t.items():
    if len(times) < 100 or dist(s) == 'robust': continue
    b = bins(s)
    lo = [x for x in shapes if dist(x) == dist(s) and bins(x) < b and len(t.get((x, n), {})) >= 100]
    hi = [x for x in shapes if dist(x) == dist(s) and bins(x) > b and len(t.get((x, n), {})) >= 100]
    if not lo or not hi: continue
    L, H = lo[-1], hi[0]
    tl, th = t[(L, n)], t[(H, n)]
    fl, fh, fs = min(tl.values()), min(th.values()), min(times.values())
    f = (math.log2(b) - math.log2(bins(L))) / (math.log2(bins(H)) - math.log2(bins(L)))
    common = [c for c in tl if c in th and c in times]
    interp = min(common, key=lambda c: (tl[c] / fl) ** (1 - f) * (th[c] / fh) ** f)
    # the family's shape distance: log2 bins, counted twice when the tuned problem has more bins
    dL, dH = math.log2(b / bins(L)), 2 * math.log2(bins(H) / b)
    near = min(tl, key=tl.get) if dL <= dH else min(th, key=th.get)
    other = min(th, key=th.get) if dL <= dH else min(tl, key=tl.get)
    g = lambda c: times.get(c, float('nan')) / fs
    out.append((s, n, L.split('/')[2], H.split('/')[2], g(near), g(other), g(interp)))
print(f"{'held-out shape':45} {'n':>9} {'lo':>10} {'hi':>11} {'nearest':>8} {'other':>8} {'interp':>8}")
for r in sorted(out): print(f"{r[0]:45} {r[1]:9} {r[2]:>10} {r[3]:>11} {r[4]:8.3f} {r[5]:8.3f} {r[6]:8.3f}")
gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
for k, i in (('nearest', 4), ('other', 5), ('interp', 6)):
    xs = [r[i] for r in out if r[i] == r[i]]
    print(k, 'geomean', round(gm(xs), 3), 'worst', round(max(xs), 3), 'n', len(xs))
