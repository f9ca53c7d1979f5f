"""torch.topk on the keys of the bench's `topk` group (benches/sort/topk.rs): 64M random u32 keys
of `Pattern::Random` (as int32 with the top bit flipped, which orders as u32), the k smallest
for k = 16, 1K, 1M. Three rows per k, median of 11 runs after 2 warm-ups: `device` (the keys
already on the GPU, CUDA events around torch.topk), `host` (wall time from the NumPy array to the
values and indices back in host memory: upload, topk, download), `cpu` (torch.topk on a CPU
tensor, all cores). Prints one line per row: `topk-torch <where> k=<k> n=<n>: <ms> ms`.

    ci/topk_torch.py [--json] [--where device,host,cpu] [--k 16,1024,1048576] [n]

--json prints JSON lines for ci/report/report.py instead (src "torch-topk": where, k, n, median_ms, runs;
first a version line, or one `absent` line when torch or its GPU is missing). --where picks rows:
ci/report.sh leaves out `cpu`, which takes 0.7-2.5 s a call at 64M keys."""

import argparse
import json
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout for report_torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "report"))
from report_torch import import_torch, parse_sizes, pattern_keys_np  # noqa: E402

WHERE = ("device", "host", "cpu")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", nargs="?", type=int, default=64 << 20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--where", default=",".join(WHERE))
    ap.add_argument("--k", default="16,1024,1048576")
    args = ap.parse_args()
    n, ks = args.n, parse_sizes(args.k)
    where = [w for w in WHERE if w in args.where.split(",")]
    try:
        np, torch = import_torch()
    except Exception as e:
        if not args.json:
            raise
        # A missing anchor, not a failed report.
        print(json.dumps({"src": "torch-topk", "kind": "absent", "text": f"torch unavailable: {e}"}))
        return 0
    if args.json:
        print(json.dumps({"src": "torch-topk", "kind": "version", "text": f"torch {torch.__version__}"}), flush=True)
    keys_np = (pattern_keys_np(np, "random", n) ^ np.uint32(0x80000000)).view(np.int32)
    host = torch.from_numpy(keys_np)
    dev = host.to("cuda")
    for k in ks:
        kk = min(k, n)  # the rows keep the bench's k, which names them
        want = np.sort(keys_np[np.argpartition(keys_np, kk - 1)[:kk]])
        v, i = torch.topk(dev, kk, largest=False, sorted=True)
        assert np.array_equal(v.cpu().numpy(), want) and torch.equal(dev[i], v), f"torch.topk k={k}"
        rows = {w: [] for w in where}
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for it in range(13):
            got = {}
            if "device" in rows:
                a.record()
                torch.topk(dev, kk, largest=False, sorted=True)
                b.record()
                torch.cuda.synchronize()
                got["device"] = a.elapsed_time(b)
            if "host" in rows:
                t = time.perf_counter()
                v, i = torch.topk(host.to("cuda"), kk, largest=False, sorted=True)
                v, i = v.cpu(), i.cpu()
                got["host"] = (time.perf_counter() - t) * 1e3
            if "cpu" in rows:
                t = time.perf_counter()
                torch.topk(host, kk, largest=False, sorted=True)
                got["cpu"] = (time.perf_counter() - t) * 1e3
            if it >= 2:
                for w, ms in got.items():
                    rows[w].append(ms)
        for w, times in rows.items():
            med = statistics.median(times)
            if args.json:
                rec = {"src": "torch-topk", "where": w, "k": k, "n": n, "median_ms": round(med, 6),
                       "min_ms": round(min(times), 6), "runs": len(times), "checked": True}
                print(json.dumps(rec), flush=True)
            else:
                print(f"topk-torch {w} k={k} n={n}: {med:.2f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
