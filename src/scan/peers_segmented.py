#!/usr/bin/env python3
"""What users compose instead of gpulab's segmented scan: PyTorch's cumsum, then each element less the
sum before its segment's start (a cummax of the head positions and a gather), timed like gpulab
times (CUDA events, median of the repetitions), so that its rows can be set beside `gpulab bench
segmented_scan` from the same device run.

    python3 src/scan/peers_segmented.py [--n 2^28] [--segments 1,32,1000,2^20] [--reps 30] [--json OUT]
"""
import pathlib
import sys

# The helpers every peers script shares (scripts/peers_common.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from peers_common import parse_size, report, time_ms, torch_peers


def main():
    start = torch_peers(__doc__, 30, n="2^28", segments="1,32,1000,2^20")
    if start is None:
        return 1
    args, n, torch, event, elapsed = start
    rows = []
    positions = torch.arange(n, device="cuda")
    for mean in (parse_size(s) for s in args.segments.split(",")):
        heads = torch.rand(n, device="cuda") < 1.0 / mean
        heads[0] = True
        for dtype in ("int32", "float32", "float64"):
            t = getattr(torch, dtype)
            x = (torch.randint(-1000, 1000, (n,), device="cuda", dtype=t) if dtype == "int32"
                 else torch.rand(n, device="cuda", dtype=t) * 2 - 1)

            def composition():
                total = torch.cumsum(x, 0)
                start = torch.cummax(torch.where(heads, positions, 0), 0).values
                return total - (total - x)[start]  # the sum before each segment's first element taken off

            med, lo, hi = time_ms(composition, args.reps, event, elapsed, queued=True)
            bytes_moved = n * (2 * x.element_size() + 1)  # what the library must move: values, flags, output
            rows.append({"peer": f"torch cumsum+cummax+gather {torch.__version__}", "type": dtype, "n": n,
                         "segments": mean, "median_ms": med, "min_ms": lo, "max_ms": hi,
                         "gb_per_s": bytes_moved / med / 1e6})
            del x
            torch.cuda.empty_cache()
    report(rows, lambda r: f"{r['peer']:<40} {r['type']:<8} n={r['n']} segments~{r['segments']}  {r['median_ms']:.4f} ms "
                           f"({r['min_ms']:.4f}..{r['max_ms']:.4f})  {r['gb_per_s']:.1f} GB/s", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
