#!/usr/bin/env python3
"""What users call instead of gpulab's transpose, add and triangle zeroing: PyTorch's
a.t().contiguous(), torch.add into a preallocated output, and a.tril_() (in place, zeroes the
elements above the diagonal, as gpulab's upper zeroing; torch.triu_ is its mirror), timed like
gpulab times, so that their rows can be set beside `gpulab bench` from one device run.

    python3 src/matrix/peers.py [--shapes 16384x16384,4096x4096] [--reps 20] [--json OUT]
"""
import pathlib
import sys

# The helpers every peers script shares (scripts/peers_common.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from peers_common import parse_arguments, parse_size, report, time_ms, torch_timing


def main():
    args = parse_arguments(__doc__, 20, shapes="16384x16384,16383x16385,4096x4096")
    timing = torch_timing()
    if timing is None:
        return 1
    torch, event, elapsed = timing
    rows = []
    for shape in args.shapes.split(","):
        r, c = (parse_size(s) for s in shape.split("x"))
        a = torch.rand(r, c, device="cuda") * 2 - 1
        b = torch.rand(r, c, device="cuda") * 2 - 1
        out = torch.empty_like(a)
        elements = r * c
        zeroed = sum(max(0, c - i - 1) for i in range(r))  # elements above the diagonal
        cases = [
            ("transpose", "a.t().contiguous()", lambda: a.t().contiguous(), 8 * elements),
            ("add", "torch.add(a, b, out=c)", lambda: torch.add(a, b, out=out), 12 * elements),
            # tril_ zeroes above the diagonal in place, like gpulab's upper zeroing; judged by the
            # bytes that must move (the zeroed triangle written), as gpulab's rows are.
            ("triangle", "a.tril_() (zeroes j > i)", lambda: a.tril_(), 4 * zeroed),
        ]
        for op, peer, fn, bytes_moved in cases:
            med, lo, hi = time_ms(fn, args.reps, event, elapsed)
            rows.append({"op": op, "peer": f"{peer} torch {torch.__version__}", "shape": shape, "median_ms": med,
                         "min_ms": lo, "max_ms": hi, "gb_per_s": bytes_moved / med / 1e6})
        del a, b, out
        torch.cuda.empty_cache()
    report(rows, lambda row: f"{row['op']:<10} {row['shape']:<12} {row['peer']:<48} {row['median_ms']:.4f} ms "
                             f"({row['min_ms']:.4f}..{row['max_ms']:.4f})  {row['gb_per_s']:.1f} GB/s (bytes that must move)",
           args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
