# Does a shape's robust winner (dist=robust) carry to another shape better than its per-distribution winner? Leave-one-out
# over a preset cache: for every preset problem (shape T, n, uniform or narrow) fully tuned, each other shape S at the same n
# and distribution: the time of S's winner and of S's robust winner on T, over T's best. Usage: robust_transfer.py CACHE
import sqlite3, re, math, statistics as st, sys
c = sqlite3.connect(sys.argv[1] if len(sys.argv) > 1 else '/tmp/s/preset.db')
probs = c.execute("select id, shape_key, n, distribution from problems where family='histogram'").fetchall()
win = dict(c.execute("select problem_id, config from winners").fetchall())
def table(pid):
    rid = c.execute("select id from runs where problem_id=? and strategy='exhaustive' order by id desc", (pid,)).fetchone()
    if not rid: return None
    t = dict(c.execute("select config, median_ms from measurements where run_id=? and status='ok'", (rid[0],)).fetchall())
    return t if len(t) > 20 else None
base = lambda sk: sk.rsplit('/dist=', 1)[0]
by = {}
for pid, sk, n, d in probs: by[(base(sk), n, d)] = pid
res = {'own': [], 'robust': []}
rows = []
for (shape, n, d), pid in by.items():
    if d not in ('uniform', 'narrow'): continue
    t = table(pid)
    if not t: continue
    best = min(t.values())
    ttype = shape.split('/')[1]
    for (s2, n2, d2), pid2 in by.items():
        if s2 == shape or n2 != n or d2 != d: continue
        rob = by.get((s2, n, 'robust'))
        if rob is None or pid2 not in win or rob not in win: continue
        a, b = t.get(win[pid2]), t.get(win[rob])
        if a is None or b is None: continue
        same_type = s2.split('/')[1] == ttype
        rows.append((n, d, shape, s2, same_type, a / best, b / best))
def q(v, p): v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))]
for label, keep in [('all', lambda r: True), ('same type', lambda r: r[4]), ('n<=1M', lambda r: r[0] <= 1 << 20), ('n=16M', lambda r: r[0] > 1 << 20),
                    ('same type n<=1M', lambda r: r[4] and r[0] <= 1 << 20)]:
    R = [r for r in rows if keep(r)]
    if not R: continue
    own = [r[5] for r in R]; rob = [r[6] for r in R]
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    better = sum(1 for r in R if r[6] < r[5] * 0.98); worse = sum(1 for r in R if r[6] > r[5] * 1.02)
    print(f"{label:18s} pairs {len(R):4d}  per-dist winner: gm {gm(own):.3f} median {q(own,.5):.3f} p90 {q(own,.9):.3f} | robust: gm {gm(rob):.3f} median {q(rob,.5):.3f} p90 {q(rob,.9):.3f} | robust better/worse by 2%: {better}/{worse}")
