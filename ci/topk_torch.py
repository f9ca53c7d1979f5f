"""torch.topk on the keys of the bench's `topk` group (benches/sort/topk.rs): 64M random u32 keys
of `Pattern::Random` (as int32 with the top bit flipped, which orders as u32), the k smallest
for k = 16, 1K, 1M. Three rows per k, median of 11 runs after 2 warm-ups: `device` (the keys
already on the GPU, CUDA events around torch.topk), `host` (wall time from the NumPy array to the
values and indices back in host memory: upload, topk, download), `cpu` (torch.topk on a CPU
tensor, all cores). Prints one line per row: `topk-torch <where> k=<k> n=<n>: <ms> ms`."""

import statistics
import sys
import time

from report_torch import import_torch, pattern_keys_np


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64 << 20
    np, torch = import_torch()
    keys_np = (pattern_keys_np(np, "random", n) ^ np.uint32(0x80000000)).view(np.int32)
    host = torch.from_numpy(keys_np)
    dev = host.to("cuda")
    for k in (16, 1024, 1 << 20):
        want = np.sort(keys_np[np.argpartition(keys_np, k - 1)[:k]])
        v, i = torch.topk(dev, k, largest=False, sorted=True)
        assert np.array_equal(v.cpu().numpy(), want) and torch.equal(dev[i], v), f"torch.topk k={k}"
        rows = {"device": [], "host": [], "cpu": []}
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for it in range(13):
            a.record()
            torch.topk(dev, k, largest=False, sorted=True)
            b.record()
            torch.cuda.synchronize()
            t = time.perf_counter()
            v, i = torch.topk(host.to("cuda"), k, largest=False, sorted=True)
            v, i = v.cpu(), i.cpu()
            t_host = time.perf_counter() - t
            t = time.perf_counter()
            torch.topk(host, k, largest=False, sorted=True)
            t_cpu = time.perf_counter() - t
            if it >= 2:
                rows["device"].append(a.elapsed_time(b))
                rows["host"].append(t_host * 1e3)
                rows["cpu"].append(t_cpu * 1e3)
        for where, times in rows.items():
            print(f"topk-torch {where} k={k} n={n}: {statistics.median(times):.2f} ms", flush=True)


if __name__ == "__main__":
    main()
