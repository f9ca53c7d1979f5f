"""The torch columns: torch.sort on the GPU on the bench's inputs (JSON lines for the report), and
PyTorch's host-to-host round trip (ci/gpu.sh). Needs numpy and torch, imported only when run.
BENCHMARKS.md names `ci/report/report.py` as the home of the input formulas: the command that runs these."""

import json
import time

from report_data import PATTERNS

def splitmix_np(np, seed, idx):
    z = np.uint64(seed) + (idx + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def pattern_keys_np(np, pattern, n, chunk=1 << 24):
    """The keys of benches/sort/inputs.rs `Pattern::key` (copy 0, seed n), as uint32."""
    out = np.empty(n, dtype=np.uint32)
    lo = np.uint64(0xFFFFFFFF)
    for start in range(0, n, chunk):
        idx = np.arange(start, min(n, start + chunk), dtype=np.uint64)
        if pattern == "sorted":
            k = idx
        elif pattern == "reverse":
            k = np.uint64(n - 1) - idx
        elif pattern == "equal":
            k = np.full(idx.shape, 0x9E3779B9, dtype=np.uint64)
        else:
            z = splitmix_np(np, n, idx)
            if pattern == "random":
                k = z
            elif pattern == "distinct16":
                k = splitmix_np(np, 16, z & np.uint64(15))
            elif pattern == "zipf":
                e = z >> np.uint64(59)
                one = np.left_shift(np.uint64(1), e)
                rank = one | (z & (one - np.uint64(1)) & lo)
                k = rank * np.uint64(0x9E3779B1)
            else:
                raise ValueError(pattern)
        out[start : start + len(idx)] = (k & lo).astype(np.uint32)
    return out


def import_torch():
    """numpy and torch, with a CUDA device; raises when either is missing."""
    import numpy as np
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    return np, torch


def torch_bench(args):
    try:
        np, torch = import_torch()
    except Exception as e:  # a missing column, not a failed report
        print(json.dumps({"src": "torch", "kind": "absent", "text": f"torch unavailable: {e}"}))
        return 0
    print(json.dumps({"src": "torch", "kind": "version", "text": f"torch {torch.__version__}"}))
    plan = [("random", n) for n in parse_sizes(args.random)]
    plan += [(p, n) for p in PATTERNS[1:] for n in parse_sizes(args.patterns)]
    dev = torch.device("cuda")
    for pattern, n in plan:
        t_gen = time.time()
        keys_u32 = pattern_keys_np(np, pattern, n)
        # int32 with the top bit flipped sorts in u32 order; torch has no general uint32 sort.
        keys = torch.from_numpy((keys_u32 ^ np.uint32(0x80000000)).view(np.int32)).to(dev)
        values = torch.arange(n, dtype=torch.int32, device=dev)
        del keys_u32
        sk, idx = torch.sort(keys, stable=True)
        sv = values[idx]
        ok = bool((sk[1:] >= sk[:-1]).all()) and bool(torch.equal(keys[sv.long()], sk))
        times_keys, times_pairs = [], []
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for it in range(13):
            a.record()
            sk, idx = torch.sort(keys, stable=True)
            b.record()
            sv = values[idx]
            c = torch.cuda.Event(enable_timing=True)
            c.record()
            c.synchronize()
            if it >= 3:
                times_keys.append(a.elapsed_time(b))
                times_pairs.append(a.elapsed_time(c))
        med = lambda t: sorted(t)[len(t) // 2]
        rec = {"src": "torch", "pattern": pattern, "n": n, "keys_ms": med(times_keys), "pairs_ms": med(times_pairs),
               "checked": ok, "gen_s": round(time.time() - t_gen, 2)}
        print(json.dumps(rec), flush=True)
        del keys, values, sk, idx, sv
        torch.cuda.empty_cache()
    return 0


def torch_host(args):
    """What a PyTorch user waits for: host tensors to the GPU, stable sort, values gathered, back to
    the host (pageable memory, as torch hands it out). Wall clock, median, one line per size."""
    try:
        np, torch = import_torch()
    except Exception as e:
        print(f"torch round trip not measured: {e}")
        return 0
    dev = torch.device("cuda")
    print(f"torch {torch.__version__} round trip, host -> GPU sort + gather -> host, random pairs, median ms")
    for n in parse_sizes(args.sizes):
        keys_u32 = pattern_keys_np(np, "random", n)
        keys = torch.from_numpy((keys_u32 ^ np.uint32(0x80000000)).view(np.int32))
        values = torch.arange(n, dtype=torch.int32)
        del keys_u32
        reps = max(3, min(11, (64 << 20) * 11 // max(n, 1)))
        times = []
        for it in range(reps + 1):
            torch.cuda.synchronize()
            t = time.perf_counter()
            dk, dv = keys.to(dev), values.to(dev)
            sk, idx = torch.sort(dk, stable=True)
            out_k, out_v = sk.cpu(), dv[idx].cpu()
            torch.cuda.synchronize()
            if it > 0:
                times.append((time.perf_counter() - t) * 1e3)
            del dk, dv, sk, idx
        ok = bool((out_k[1:] >= out_k[:-1]).all()) and bool(torch.equal(keys[out_v.long()], out_k))
        print(f"  n={n:>10}  torch round trip {sorted(times)[len(times) // 2]:9.2f} ms  ({reps} runs, checked: {ok})",
              flush=True)
        del keys, values, out_k, out_v
        torch.cuda.empty_cache()
    return 0


def parse_sizes(s):
    return [int(t) for t in (s or "").split(",") if t.strip()]
