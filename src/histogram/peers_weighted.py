#!/usr/bin/env python3
"""What users call instead of gpulab's weighted histogram: PyTorch's bincount(weights=) on the values'
bins (torch.remainder(v, m), as gpulab's bin rule), timed like gpulab times (CUDA events, median of
the repetitions), so that its rows can be set beside `gpulab bench weighted_histogram` from the same
device run. CuPy's bincount takes weights too, where CuPy is installed.

    python3 src/histogram/peers_weighted.py [--n 2^26] [--bins 256,4096] [--reps 30] [--json OUT]
"""
import pathlib
import sys

# The helpers every peers script shares (scripts/peers_common.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from peers_common import optional_cupy, parse_size, report, time_ms, torch_peers


def main():
    start = torch_peers(__doc__, 30, n="2^26", bins="256,4096")
    if start is None:
        return 1
    args, n, torch, event, elapsed = start
    cupy = optional_cupy()
    rows = []
    values = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
    for m in (parse_size(s) for s in args.bins.split(",")):
        # The bin rule, outside the timing (gpulab applies it inside); int32, as gpulab reads them (int64
        # bins would make bincount read twice the bytes: 0.89 against 0.69 ms at m = 256 on an H100).
        bins = torch.remainder(values, m)
        for dtype in ("float32", "float64"):
            w = torch.rand(n, device="cuda", dtype=getattr(torch, dtype)) * 2 - 1
            peers = [(f"torch.bincount(weights=) {torch.__version__}", lambda: torch.bincount(bins, weights=w, minlength=m))]
            if cupy is not None:
                cbins, cw = cupy.asarray(bins), cupy.asarray(w)
                peers.append((f"cupy.bincount(weights=) {cupy.__version__}", lambda: cupy.bincount(cbins, weights=cw, minlength=m)))
            for name, call in peers:
                med, lo, hi = time_ms(call, args.reps, event, elapsed, queued=True)
                bytes_moved = n * (4 + w.element_size())  # what gpulab must read: the values and the weights
                rows.append({"peer": name, "type": dtype, "n": n, "m": m, "median_ms": med, "min_ms": lo, "max_ms": hi,
                             "gb_per_s": bytes_moved / med / 1e6})
    report(rows, lambda r: f"{r['peer']:<40} {r['type']:<8} n={r['n']} m={r['m']}  {r['median_ms']:.4f} ms "
                           f"({r['min_ms']:.4f}..{r['max_ms']:.4f})  {r['gb_per_s']:.1f} GB/s", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
