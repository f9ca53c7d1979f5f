# A CPU model of oe_warp_tail (kernels-cuda/cuda/network_oddeven.cuh): the same lanes, rounds and
# shuffles, on a pairs tile (4096 slots, 256 threads), checked against the plain shared-memory steps
# (oe_step) on random windows: first and later blocks, partial tiles, both orders, runs from 32 up,
# few and many distinct keys. It checks the algorithm, not the CUDA; the GPU tests check that.
#   python3 ci/net/warp_tail_model.py      (prints "all 60 cases agree", or the first mismatch)
import random
W, THREADS = 4096, 256
OWN = W // (THREADS // 32); ROWS = OWN // 32

class Map:
    def __init__(self, start, halo, n):
        self.start = start; self.first = -start if start < 0 else 0
        l = n - start; self.lim = l if l < W else W
    def pair_ok(self, a, b, s):
        pa, pb = self.start + a, self.start + b
        return a >= self.first and b < self.lim and (pa >> s) == (pb >> s)

def cas(x, y, desc):
    ka, kb = x[0], y[0]
    swap = (ka < kb) if desc else (kb < ka)
    return (y, x) if swap else (x, y)

def ref_steps(sm, mp, s, q, desc):
    sm = list(sm)
    for dbit in range(q - 1, -1, -1):
        dv = 1 << dbit
        for i in range(W // 2):
            lower = (i & (dv - 1)) | ((i & ~(dv - 1)) << 1)
            a = lower + dv
            if a + dv < W and mp.pair_ok(a, a + dv, s):
                sm[a], sm[a + dv] = cas(sm[a], sm[a + dv], desc)
    return sm

def warp_tail(sm, mp, s, Q, desc):
    out = list(sm)
    regs = {}
    for w in range(THREADS // 32):
        base = w * OWN - 32
        x = [[sm[base + 32 * j + l] if 0 <= base + 32 * j + l < W else None for j in range(ROWS + 2)] for l in range(32)]
        regs[w] = (base, x)
    # (__syncthreads) then compute per warp
    for w, (base, x) in regs.items():
        for q in range(Q - 1, -1, -1):
            d = 1 << q
            for r in range(-1, ROWS + 2):
                low = [bool(l & d) for l in range(32)]
                wrap = [(l + d >= 32) if low[l] else (l < d) for l in range(32)]
                up = [(not low[l]) and wrap[l] for l in range(32)]
                frm = [((l + d) if low[l] else (l - d)) & 31 for l in range(32)]
                cur = []
                for l in range(32):
                    idx = (r + 1 if r + 1 <= ROWS + 1 else ROWS + 1) if up[l] else (r if r >= 0 else 0)
                    cur.append(x[l][idx])
                other = [cur[frm[l]] for l in range(32)]
                for l in range(32):
                    row = r + 1 if up[l] else r
                    v = base + 32 * row + l
                    a = v if low[l] else v - d
                    prow = (row + 1 if wrap[l] else row) if low[l] else (row - 1 if wrap[l] else row)
                    ok = 0 <= row <= ROWS + 1 and 0 <= prow <= ROWS + 1 and a >= 0 and a + d < W and mp.pair_ok(a, a + d, s)
                    res = cur[l]
                    if ok:
                        ka = (cur[l] if low[l] else other[l])[0]; kb = (other[l] if low[l] else cur[l])[0]
                        swap = (ka < kb) if desc else (kb < ka)
                        if swap: res = other[l]
                    if up[l]:
                        if r + 1 <= ROWS + 1: x[l][r + 1] = res
                    else:
                        if r >= 0: x[l][r] = res
        for j in range(1, ROWS + 1):
            for l in range(32):
                out[base + 32 * j + l] = x[l][j]
    return out

random.seed(7)
cases = 0
for trial in range(60):
    n = random.choice([10 ** 6, 5000, 4097, 3000, 70001, 123])
    start = random.choice([-256, 0, 3584, 4096 * 3 - 256, n - 4000, n - 100])
    s = random.choice([5, 6, 7, 9, 12, 13, 16, 20])
    Q = random.randint(1, 5)
    desc = random.random() < 0.5
    mp = Map(start, 256, n)
    keyspace = random.choice([4, 1000, 2 ** 32])
    sm = [(random.randrange(keyspace), i) for i in range(W)]
    want = ref_steps(sm, mp, s, Q, desc)
    got = warp_tail(sm, mp, s, Q, desc)
    real = [v for v in range(W) if mp.first <= v < mp.lim]
    bad = [v for v in real if want[v] != got[v]]
    cases += 1
    if bad:
        print("MISMATCH", dict(n=n, start=start, s=s, Q=Q, desc=desc, keyspace=keyspace), len(bad), bad[:5])
        raise SystemExit(1)
print("all", cases, "cases agree")
