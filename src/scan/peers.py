#!/usr/bin/env python3
"""What users call instead of gpulab's scan: torch.cumsum and cupy.cumsum, timed like gpulab times
(CUDA events, median of the repetitions, output preallocated where the library allows it), so
that their rows can be set beside `gpulab bench scan` from the same device run.

    python3 src/scan/peers.py [--n 2^28] [--reps 30] [--json OUT]
"""
import pathlib
import sys

# The helpers every peers script shares (scripts/peers_common.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from peers_common import optional_cupy, parse_arguments, parse_size, report, time_ms


def main():
    args = parse_arguments(__doc__, 30, n="2^28")
    n = parse_size(args.n)
    rows = []
    try:
        import torch
    except ImportError:
        torch = None
    cupy = optional_cupy()
    if torch is None and cupy is None:
        print("neither PyTorch nor CuPy is installed: no peers to time", file=sys.stderr)
        return 1
    for dtype in ("int32", "float32", "float64"):
        bytes_moved = n * 4 * 2 if dtype != "float64" else n * 8 * 2
        if torch is not None:
            t = getattr(torch, dtype)
            x = (torch.randint(-1000, 1000, (n,), device="cuda", dtype=t) if dtype == "int32"
                 else torch.rand(n, device="cuda", dtype=t) * 2 - 1)
            out = torch.empty_like(x)
            med, lo, hi = time_ms(lambda: torch.cumsum(x, 0, out=out), args.reps,
                                  lambda: torch.cuda.Event(enable_timing=True), lambda a, b: a.elapsed_time(b))
            rows.append({"peer": f"torch.cumsum {torch.__version__}", "type": dtype, "n": n, "median_ms": med,
                         "min_ms": lo, "max_ms": hi, "gb_per_s": bytes_moved / med / 1e6})
            del x, out
            torch.cuda.empty_cache()
        if cupy is not None:
            x = (cupy.random.randint(-1000, 1000, n, dtype=dtype) if dtype == "int32"
                 else cupy.random.random(n, dtype=dtype) * 2 - 1)
            out = cupy.empty_like(x)
            med, lo, hi = time_ms(lambda: cupy.cumsum(x, out=out), args.reps, lambda: cupy.cuda.Event(),
                                  cupy.cuda.get_elapsed_time)
            rows.append({"peer": f"cupy.cumsum {cupy.__version__}", "type": dtype, "n": n, "median_ms": med,
                         "min_ms": lo, "max_ms": hi, "gb_per_s": bytes_moved / med / 1e6})
            del x, out
            cupy.get_default_memory_pool().free_all_blocks()
    report(rows, lambda r: f"{r['peer']:<28} {r['type']:<8} n={r['n']}  {r['median_ms']:.4f} ms "
                           f"({r['min_ms']:.4f}..{r['max_ms']:.4f})  {r['gb_per_s']:.1f} GB/s", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
