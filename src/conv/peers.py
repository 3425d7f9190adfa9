#!/usr/bin/env python3
"""What users reach for instead of gpulab's 3x3 filter, timed like gpulab times, and the copy of
the same bytes as a size-matched ceiling: a device-to-device copy of an image's bytes (small
copies do not reach the 1 GiB copy ceiling) and PyTorch's pipeline (uint8 HWC -> float NCHW ->
replicate pad -> depthwise conv2d -> round half away from zero -> clamp -> uint8 HWC).

    python3 src/conv/peers.py [--sizes 7680x4320,...] [--kernel 0,-1,0,-1,5,-1,0,-1,0/1] [--reps 20] [--json OUT]
"""
import pathlib
import sys

# The helpers every peers script shares (scripts/peers_common.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from peers_common import parse_arguments, report, time_ms, torch_timing


def main():
    args = parse_arguments(__doc__, 20, sizes="1920x1080,3840x2160,7680x4320,15360x8640",
                           kernel=("0,-1,0,-1,5,-1,0,-1,0/1", "nine integers / divisor (sharpen)"))
    timing = torch_timing()
    if timing is None:
        return 1
    torch, event, elapsed = timing
    import torch.nn.functional as F
    weights, _, divisor = args.kernel.partition("/")
    k = torch.tensor([float(v) for v in weights.split(",")], device="cuda").reshape(1, 1, 3, 3).repeat(3, 1, 1, 1)
    d = float(divisor or 1)
    rows = []
    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.split("x"))
        image = torch.randint(0, 256, (h, w, 3), dtype=torch.uint8, device="cuda")
        copy = torch.empty_like(image)
        moved = 6 * w * h  # 3 bytes read and 3 written a pixel

        def pipeline():
            x = image.permute(2, 0, 1).unsqueeze(0).float()
            y = F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), k, groups=3) / d
            y = torch.sign(y) * torch.floor(y.abs() + 0.5)
            return y.clamp_(0, 255).to(torch.uint8).squeeze(0).permute(1, 2, 0).contiguous()

        for peer, fn in (("copy of the same bytes (tensor.copy_)", lambda: copy.copy_(image)),
                         ("torch pipeline (float depthwise conv2d)", pipeline)):
            med, lo, hi = time_ms(fn, args.reps, event, elapsed)
            rows.append({"peer": f"{peer} torch {torch.__version__}", "size": size, "median_ms": med, "min_ms": lo, "max_ms": hi,
                         "gb_per_s": moved / med / 1e6})
        del image, copy
        torch.cuda.empty_cache()
    report(rows, lambda row: f"{row['size']:<12} {row['peer']:<60} {row['median_ms']:.4f} ms "
                             f"({row['min_ms']:.4f}..{row['max_ms']:.4f})  {row['gb_per_s']:.1f} GB/s (6 bytes a pixel)",
           args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
