"""Shared by the peers scripts: sizes as gpulab writes them, and timing like gpulab times (CUDA
events around each call, warm-up first, median of the repetitions)."""
import argparse
import statistics


def parse_arguments(doc, reps, **options):
    """The command line of a peers script: its own options (name=default, or name=(default, help):
    --name, a string), --reps (default `reps`) and --json; the description is the first line of `doc`."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, value in options.items():
        default, help_text = value if isinstance(value, tuple) else (value, None)
        ap.add_argument(f"--{name}", default=default, help=help_text)
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--json")
    return ap.parse_args()


def parse_size(text):
    """ "2^28", "2^28+5", "1000" """
    if text.startswith("2^"):
        base, _, extra = text[2:].partition("+")
        return (1 << int(base)) + (int(extra) if extra else 0)
    return int(text)


def time_ms(fn, reps, event, elapsed, queued=False):
    """Median, min and max milliseconds of `reps` calls of fn, each between two events. By default
    each call waits for the one before (its host time before the launch falls inside its pair: the
    latency of one call); queued=True issues them back to back and waits once at the end, as
    gpulab's harness times, so each pair holds the GPU's time for the call (its host time overlaps
    the work queued before it)."""
    for _ in range(3):
        fn()
    pairs = []
    for _ in range(reps):
        start, stop = event(), event()
        start.record()
        fn()
        stop.record()
        if not queued:
            stop.synchronize()
        pairs.append((start, stop))
    pairs[-1][1].synchronize()
    times = [elapsed(start, stop) for start, stop in pairs]
    return statistics.median(times), min(times), max(times)


def report(rows, line, json_path):
    """Prints line(row) for every row, then writes the rows as JSON to json_path (when given)."""
    import json
    for row in rows:
        print(line(row))
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=1)


def torch_timing():
    """(torch, event, elapsed) for time_ms with CUDA events, or None (and a message) without PyTorch."""
    try:
        import torch
    except ImportError:
        import sys
        print("PyTorch is not installed: no peers to time", file=sys.stderr)
        return None
    return torch, (lambda: torch.cuda.Event(enable_timing=True)), (lambda a, b: a.elapsed_time(b))


def torch_peers(doc, reps, **options):
    """The start of a peers script timed with PyTorch's CUDA events: (args, n, torch, event,
    elapsed), n the parsed --n; None (and a message) without PyTorch."""
    args = parse_arguments(doc, reps, **options)
    timing = torch_timing()
    return None if timing is None else (args, parse_size(args.n), *timing)


def optional_cupy():
    """CuPy, or None where it is not installed (its rows are then left out)."""
    try:
        import cupy
    except ImportError:
        return None
    return cupy


def uneven_edges(torch, m, dtype):
    """m + 1 uneven sorted edges over [-1, 1], sign(x)·x² of an even grid: the float histogram
    bench's (histogram_cpu.cpp's uneven_edges)."""
    grid = torch.linspace(-1, 1, m + 1, device="cuda", dtype=dtype)
    return grid.sign() * grid * grid


def bucketize_histogram(torch, x, edges):
    """torch.histogram's bins of x between `edges` on the GPU, where torch.histogram has no CUDA
    kernel: values outside dropped, the last bin closed, then bucketize and bincount."""
    m = edges.numel() - 1
    inside = x[(x >= edges[0]) & (x <= edges[-1])]
    return torch.bincount((torch.bucketize(inside, edges, right=True) - 1).clamp_(max=m - 1), minlength=m)
