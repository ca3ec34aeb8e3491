import struct, re, subprocess, sys
def bf16(u): return struct.unpack('<f', struct.pack('<I', u<<16))[0]
def f16(u): return struct.unpack('<e', struct.pack('<H', u))[0]
import math
vals = {'bf16': sorted(v for v in (bf16(u) for u in range(65536)) if math.isfinite(v)),
        'f16': sorted(v for v in (f16(u) for u in range(65536)) if math.isfinite(v))}
import bisect
def distinct(t, lo, hi):
    v = vals[t]; return bisect.bisect_left(v, hi) - bisect.bisect_left(v, lo)
def occupied_bins(t, lo, hi, bins):
    v = vals[t]; a=bisect.bisect_left(v, lo); b=bisect.bisect_left(v, hi)
    return len(set(min(bins-1,int((x-lo)/(hi-lo)*bins)) for x in v[a:b]))
for seed in sys.argv[1:]:
    keys = subprocess.run(['/work/main/build-portable/bin/shape_bench','--held-out','100','--seed',seed,'--list'],capture_output=True,text=True).stdout.split()
    for i,k in enumerate(keys):
        m = re.match(r'histogram/(bf16|f16)/bins=(\d+)/range=\[([^,]+),([^)]+)\)/n=(\d+)/dist=(\w+)', k)
        if not m: continue
        t,b,lo,hi,n,d = m.groups(); b=int(b); lo=float(lo); hi=float(hi)
        occ = occupied_bins(t,lo,hi,b)
        print(f"{seed} row {i:3d} {k:70s} distinct {distinct(t,lo,hi):6d} occupied {occ:6d} of {b:7d} ({occ/b:.3f})")
