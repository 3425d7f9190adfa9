#!/usr/bin/env python3
"""What users call instead of gpulab::sgemm: torch.mm into a preallocated output with TF32 off
(cuBLAS FP32, what `allow_tf32 = False` gives) and on (TF32 tensor cores), on the shapes of the
SGEMM showcase (M x N x K), timed like gpulab times; and each one's worst componentwise error
against a float64 product on a sample of rows, beside gpulab's own check column.

    python3 src/sgemm/peers.py [--shapes 4096,5000x3000x700] [--reps 10] [--json OUT]
"""
import pathlib
import sys

# The helpers every peers script shares (scripts/peers_common.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from peers_common import parse_arguments, parse_size, report, time_ms, torch_timing


def main():
    args = parse_arguments(__doc__, 10, shapes="1024,4096,8192,4097,5000x3000x700,64x64x2^20,2^16x64x64,1x4096x4096")
    timing = torch_timing()
    if timing is None:
        return 1
    torch, event, elapsed = timing
    rows = []
    for shape in args.shapes.split(","):
        sides = [parse_size(s) for s in shape.split("x")]
        m, n, k = sides * 3 if len(sides) == 1 else sides
        a = torch.rand(m, k, device="cuda") * 2 - 1
        b = torch.rand(k, n, device="cuda") * 2 - 1
        out = torch.empty(m, n, device="cuda")
        rows_checked = torch.arange(0, m, max(1, m // 16), device="cuda")
        exact = a[rows_checked].double() @ b.double()
        scale = a[rows_checked].double().abs() @ b.double().abs()
        for tf32 in (False, True):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            med, lo, hi = time_ms(lambda: torch.mm(a, b, out=out), args.reps, event, elapsed)
            error = ((out[rows_checked].double() - exact).abs() / scale.clamp_min(1e-300)).max().item()
            rows.append({"peer": f"torch.mm, TF32 {'on' if tf32 else 'off'}, torch {torch.__version__}", "shape": f"{m}x{n}x{k}",
                         "median_ms": med, "min_ms": lo, "max_ms": hi, "gflops": 2 * m * n * k / med / 1e6,
                         "worst_error_over_scale": error})
        torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, out
        torch.cuda.empty_cache()
    report(rows, lambda row: f"{row['shape']:<18} {row['peer']:<44} {row['median_ms']:.4f} ms "
                             f"({row['min_ms']:.4f}..{row['max_ms']:.4f})  {row['gflops']:.0f} GFLOP/s  "
                             f"error/scale {row['worst_error_over_scale']:.2e}",
           args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
