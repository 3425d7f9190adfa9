#!/usr/bin/env python3
"""What users call instead of gpulab's float histograms: torch.histc (equal bins over a range),
torch.bucketize and bincount for sorted edges (torch.histogram has no CUDA kernel), and CuPy's
histogram of either, timed like gpulab times (CUDA events, median of the repetitions), so that their
rows can be set beside `gpulab bench float_histogram` from the same device run. The values are
those of the bench's shape: over [-1.5, 1.5), counted over [-1, 1].

    python3 src/histogram/peers_float.py [--n 2^26] [--bins 256,4096] [--reps 30] [--json OUT]
"""
import pathlib
import sys

# The helpers every peers script shares (scripts/peers_common.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from peers_common import bucketize_histogram, optional_cupy, parse_size, report, time_ms, torch_peers, uneven_edges


def main():
    start = torch_peers(__doc__, 30, n="2^26", bins="256,4096")
    if start is None:
        return 1
    args, n, torch, event, elapsed = start
    cupy = optional_cupy()
    rows = []
    for dtype in ("float32", "float64"):
        x = (torch.rand(n, device="cuda", dtype=getattr(torch, dtype)) * 3 - 1.5)
        for m in (parse_size(s) for s in args.bins.split(",")):
            edges = uneven_edges(torch, m, x.dtype)
            peers = [(f"torch.histc {torch.__version__}", "range", lambda: torch.histc(x, bins=m, min=-1, max=1)),
                     (f"torch.bucketize+bincount {torch.__version__}", "edges", lambda: bucketize_histogram(torch, x, edges))]
            if cupy is not None:
                cx, cedges = cupy.asarray(x), cupy.asarray(edges)
                peers += [(f"cupy.histogram {cupy.__version__}", "range", lambda: cupy.histogram(cx, bins=m, range=(-1, 1))),
                          (f"cupy.histogram {cupy.__version__}", "edges", lambda: cupy.histogram(cx, bins=cedges))]
            for name, form, call in peers:
                med, lo, hi = time_ms(call, args.reps, event, elapsed, queued=True)
                rows.append({"peer": name, "type": dtype, "bins": form, "n": n, "m": m, "median_ms": med, "min_ms": lo,
                             "max_ms": hi, "gb_per_s": n * x.element_size() / med / 1e6})
    report(rows, lambda r: f"{r['peer']:<34} {r['type']:<8} {r['bins']:<6} n={r['n']} m={r['m']}  {r['median_ms']:.4f} ms "
                           f"({r['min_ms']:.4f}..{r['max_ms']:.4f})  {r['gb_per_s']:.1f} GB/s", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
