#!/usr/bin/env python3
"""gpulab's Python functions timed against the one-liners they replace, in one process: each pair
on the same arrays, CUDA events around every call, median of the repetitions (peers_common), and
the ratio one-liner ÷ gpulab (> 1: gpulab is faster), twice: one call at a time (its latency, the
host's time before the launch included) and queued back to back (the GPU's time). Then the fixed cost a call adds over its
kernel: wall time per call in a loop of back-to-back calls on a small input, less the kernel time
per call measured by replaying the same calls captured in a CUDA graph (no host in the way).

    python3 scripts/peers_python.py [--reps 30] [--json OUT] [--quick] [--only histogram,histogram_range,atax,fixed_cost]
"""
import argparse
import sys
import time

from peers_common import bucketize_histogram, optional_cupy, report, time_ms, torch_timing, uneven_edges


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    ap.add_argument("--only", help="comma-separated problems (and fixed_cost) to time; the rest are skipped")
    args = ap.parse_args()
    timing = torch_timing()
    if timing is None:
        return 1
    torch, event, elapsed = timing
    import gpulab
    cupy = optional_cupy()
    torch.backends.cuda.matmul.allow_tf32 = False  # FP32 against FP32
    reps = args.reps
    rows = []
    scale = 16 if args.quick else 1

    only = set(args.only.split(",")) if args.only else None

    def pair(problem, size, ours, theirs, note=""):
        """Times gpulab (`ours`) and each (name, fn) of `theirs`; one row a peer with the ratio."""
        if only is not None and problem not in only:
            return
        g = time_ms(ours, reps, event, elapsed)
        gq = time_ms(ours, reps, event, elapsed, queued=True)
        for name, fn in theirs:
            p = time_ms(fn, reps, event, elapsed)
            pq = time_ms(fn, reps, event, elapsed, queued=True)
            rows.append({"problem": problem, "size": size, "peer": name, "gpulab_ms": g[0], "gpulab_min_ms": g[1],
                         "gpulab_max_ms": g[2], "peer_ms": p[0], "peer_min_ms": p[1], "peer_max_ms": p[2],
                         "speedup": p[0] / g[0], "gpulab_queued_ms": gq[0], "peer_queued_ms": pq[0],
                         "speedup_queued": pq[0] / gq[0], "note": note})

    def cupy_of(t):
        return cupy.from_dlpack(t) if cupy is not None else None

    def vectors(problem, ours, torch_name, torch_fn, cupy_name, cupy_fn, float_low, int_range):
        """`ours` against the PyTorch and CuPy one-liners on 2^28 float32 values in [float_low, 1)
        and 2^28 int32 values in ±int_range."""
        n = 2**28 // scale
        for dtype in (torch.float32, torch.int32):
            x = (torch.rand(n, device="cuda") * (1 - float_low) + float_low).to(dtype) if dtype.is_floating_point \
                else torch.randint(-int_range, int_range, (n,), device="cuda", dtype=dtype)
            peers = [(torch_name, lambda: torch_fn(x))]
            if cupy is not None:
                cx = cupy_of(x)
                peers.append((cupy_name, lambda: cupy_fn(cx)))
            pair(problem, f"{n} {str(dtype)[6:]}", lambda: ours(x), peers, f"{torch_name} of int32 returns int64")
            del x

    vectors("sum", gpulab.sum, "torch.sum", torch.sum, "cupy.sum", lambda cx: cupy.sum(cx), -1, 1000)

    # histogram of 2^26 int32 values
    n = 2**26 // scale
    v = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
    for m in (8, 256, 4096, 65536, 2**20):
        peers = [("torch.bincount(torch.remainder(v, m))", lambda: torch.bincount(torch.remainder(v, m), minlength=m))]
        if cupy is not None:
            cv = cupy_of(v)
            peers.append(("cupy.bincount(cupy.remainder(v, m))", lambda: cupy.bincount(cupy.remainder(cv, m), minlength=m)))
        pair("histogram", f"{n} values, m={m}", lambda: gpulab.histogram(v, m), peers)

    # weights summed by bin (gpulab's the same bits every call; bincount's float atomics are not)
    for wtype in (torch.float32, torch.float64):
        w = torch.rand(n, device="cuda", dtype=wtype)
        for m in (256, 4096):
            vm = torch.remainder(v, m)
            peers = [("torch.bincount(v % m, weights=w)", lambda: torch.bincount(vm, weights=w, minlength=m))]
            pair("histogram_weighted", f"{n} {str(wtype)[6:]} weights, m={m}", lambda: gpulab.histogram(vm, m, weights=w), peers)
        del w
    del v

    # float values into bins: torch.histc's equal bins, torch.histogram's edges, a histogram per row
    n = 2**26 // scale
    for ftype in (torch.float32, torch.float64):
        x = torch.rand(n, device="cuda", dtype=ftype) * 3 - 1.5
        for m in (256, 4096):
            edges = uneven_edges(torch, m, ftype)
            peers = [("torch.histc", lambda: torch.histc(x, bins=m, min=-1, max=1))]
            if cupy is not None:
                cx = cupy_of(x)
                peers.append(("cupy.histogram", lambda: cupy.histogram(cx, bins=m, range=(-1, 1))))
            pair("histogram_range", f"{n} {str(ftype)[6:]}, m={m}", lambda: gpulab.histogram(x, m, range=(-1.0, 1.0)), peers)
            peers = [("torch.bucketize + bincount", lambda: bucketize_histogram(torch, x, edges))]
            if cupy is not None:
                cedges = cupy_of(edges)
                peers.append(("cupy.histogram(bins=edges)", lambda: cupy.histogram(cx, bins=cedges)))
            pair("histogram_edges", f"{n} {str(ftype)[6:]}, m={m}", lambda: gpulab.histogram(x, m, edges=edges), peers)
        for count, m in ((1024, 64), (256, 256)):
            rows_of = x.view(count, -1)
            pair("histogram_rows", f"{count} rows of {n // count} {str(ftype)[6:]}, m={m}",
                 lambda: gpulab.histogram(rows_of, m, range=(-1.0, 1.0), dim=-1),
                 [("a loop of torch.histc", lambda: [torch.histc(r, bins=m, min=-1, max=1) for r in rows_of])])
        del x, rows_of

    # atax on the seed's largest shape: 17920 rows x 8960 columns
    rows_a, cols_a = (17920, 8960) if not args.quick else (1792, 896)
    a = torch.rand(rows_a, cols_a, device="cuda") * 2 - 1
    xa = torch.rand(cols_a, device="cuda") * 2 - 1
    peers = [("A.T @ (A @ x) (torch)", lambda: a.T @ (a @ xa))]
    if cupy is not None:
        ca, cxa = cupy_of(a), cupy_of(xa)
        peers.append(("A.T @ (A @ x) (cupy)", lambda: ca.T @ (ca @ cxa)))
    pair("atax", f"{rows_a}x{cols_a}", lambda: gpulab.atax(a, xa), peers)
    del a, xa

    vectors("inclusive_scan", gpulab.inclusive_scan, "torch.cumsum", lambda x: torch.cumsum(x, 0), "cupy.cumsum",
            lambda cx: cupy.cumsum(cx), 0, 100)

    # matrices, 16384 x 16384 (1 GiB)
    side = 16384 // (4 if args.quick else 1)
    a = torch.rand(side, side, device="cuda")
    b = torch.rand(side, side, device="cuda")
    pair("transpose", f"{side}x{side}", lambda: gpulab.transpose(a), [("a.t().contiguous()", lambda: a.t().contiguous())])
    pair("add", f"{side}x{side}", lambda: gpulab.add(a, b), [("a + b", lambda: a + b)])
    pair("zero_triangle", f"{side}x{side}", lambda: gpulab.zero_triangle(a, "upper"), [("a.tril_()", lambda: a.tril_())])
    del a, b

    # sgemm 4096^3 and a tall-skinny product
    for m, n_, k in ((4096, 4096, 4096), (64, 64, 2**20 // scale)):
        a = torch.rand(m, k, device="cuda") * 2 - 1
        b = torch.rand(k, n_, device="cuda") * 2 - 1
        gpulab.sgemm(a, b)  # the first call of a shape picks its tile by measurement
        peers = [("torch.mm (TF32 off)", lambda: torch.mm(a, b))]
        if cupy is not None:
            ca, cb = cupy_of(a), cupy_of(b)
            peers.append(("cupy.matmul", lambda: cupy.matmul(ca, cb)))
        pair("sgemm", f"{m}x{n_}x{k}", lambda: gpulab.sgemm(a, b), peers)
        del a, b

    # conv: 8K sharpen against a same-size copy (the floor) and PyTorch's float pipeline
    h, w = (4320, 7680) if not args.quick else (540, 960)
    image = torch.randint(0, 256, (h, w, 3), dtype=torch.uint8, device="cuda")
    kernel = torch.tensor([0., -1, 0, -1, 5, -1, 0, -1, 0], device="cuda").reshape(1, 1, 3, 3).repeat(3, 1, 1, 1)
    F = torch.nn.functional

    def pipeline():
        y = F.conv2d(F.pad(image.permute(2, 0, 1).unsqueeze(0).float(), (1, 1, 1, 1), mode="replicate"), kernel, groups=3)
        return torch.sign(y).mul_(torch.floor(y.abs() + 0.5)).clamp_(0, 255).to(torch.uint8).squeeze(0).permute(1, 2, 0).contiguous()

    pair("conv3x3", f"{w}x{h} sharpen", lambda: gpulab.conv3x3(image, "sharpen"),
         [("torch pipeline (float conv2d)", pipeline), ("image.clone() (a same-size copy)", lambda: image.clone())])
    del image

    print("one call at a time (latency) | queued back to back (GPU time, as gpulab's harness times)")
    report(rows, lambda r: f"{r['problem']:15} {r['size']:28} gpulab {r['gpulab_ms']:9.4f} ms   {r['peer']:40} "
                           f"{r['peer_ms']:9.4f} ms   x{r['speedup']:5.2f} | {r['gpulab_queued_ms']:9.4f} "
                           f"{r['peer_queued_ms']:9.4f} x{r['speedup_queued']:5.2f}", None)

    # the fixed cost of a call: 1024 floats, where the kernel takes a few microseconds
    if only is not None and "fixed_cost" not in only:
        return write(args.json, rows, [], torch, cupy)
    small = torch.rand(1024, device="cuda")
    small_int = (small * 1000).int()
    costs = []
    small_out = torch.empty((), device="cuda")
    calls = [("gpulab.sum", lambda: gpulab.sum(small)), ("torch.sum", lambda: torch.sum(small)),
             ("gpulab.sum(out=)", lambda: gpulab.sum(small, out=small_out)),
             ("torch.sum(out=)", lambda: torch.sum(small, dim=0, out=small_out)),
             # stream= takes the general path (the only one before the PyTorch operators)
             ("gpulab.sum(stream=) general", lambda: gpulab.sum(small, stream=torch.cuda.current_stream())),
             ("gpulab.histogram m=256", lambda: gpulab.histogram(small_int, 256)),
             ("gpulab.inclusive_scan", lambda: gpulab.inclusive_scan(small))]
    if gpulab.torch_operators():
        calls += [("torch.ops.gpulab.sum", lambda: torch.ops.gpulab.sum(small)),
                  ("torch.ops.gpulab.histogram", lambda: torch.ops.gpulab.histogram(small_int, 256))]
    for name, fn in calls:
        costs.append({"call": name, **fixed_cost(torch, fn)})
    for c in costs:
        print(f"fixed cost {c['call']:24} wall {c['wall_us']:6.2f} us/call   kernel(s) in a graph {c['graph_us']:6.2f} "
              f"us/call   added {c['added_us']:6.2f} us   (host time per call {c['host_us']:6.2f} us)")

    return write(args.json, rows, costs, torch, cupy)


def write(path, rows, costs, torch, cupy):
    if path:
        import json
        with open(path, "w") as f:
            json.dump({"pairs": rows, "fixed_costs": costs, "torch": torch.__version__,
                       "cupy": getattr(cupy, "__version__", None), "device": torch.cuda.get_device_name()}, f, indent=1)
    return 0


def fixed_cost(torch, fn, calls=2000, repeats=7):
    """Median over `repeats` of: wall time per call of `calls` back-to-back calls (then one
    synchronisation), the host time per call (before that synchronisation), and the GPU time per
    call of the same calls captured in a CUDA graph and replayed; added = wall - graph."""
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    walls, hosts = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        issued = time.perf_counter()
        torch.cuda.synchronize()
        end = time.perf_counter()
        walls.append((end - start) / calls * 1e6)
        hosts.append((issued - start) / calls * 1e6)
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()  # warm the allocator's graph pool path
    torch.cuda.current_stream().wait_stream(side)
    with torch.cuda.graph(graph, stream=side):  # the stream warmed above: gpulab's scratch for it exists
        for _ in range(100):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    replays = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        replays.append(start.elapsed_time(stop) * 1e3 / 100)
    med = lambda v: sorted(v)[len(v) // 2]
    wall, graph_us = med(walls), med(replays)
    return {"wall_us": wall, "host_us": med(hosts), "graph_us": graph_us, "added_us": wall - graph_us}


if __name__ == "__main__":
    sys.exit(main())
