#!/usr/bin/env python3
"""Where the host time of one gpulab call from Python goes: gpulab.sum on 1024 floats by each of
its paths (the direct path on PyTorch tensors, the registered operator, the general path) and each
step of them timed alone (perf_counter over back-to-back calls, median of repeats), beside torch.sum
and an empty nanobind call. The largest step is the one to cut.

    python3 scripts/python_call_cost.py [--calls 20000]
"""
import argparse
import statistics
import sys
import time


def per_call_us(fn, calls, repeats=7):
    for _ in range(200):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    import torch
    import gpulab
    from gpulab import _arrays, _core

    x = torch.rand(1024, device="cuda")
    out = torch.empty((), device="cuda")
    a = _arrays.view(x, "sum", ("float32",))
    call = _arrays.Call(a, None)
    address, stream = out.data_ptr(), call.stream
    current = torch.cuda.current_stream()
    steps = [
        ("gpulab.sum (the whole call)", lambda: gpulab.sum(x)),
        ("gpulab.sum(x, out=out) (no allocation)", lambda: gpulab.sum(x, out=out)),
        ("torch.sum", lambda: torch.sum(x)),
        ("torch.sum(x, out=out)", lambda: torch.sum(x, dim=0, out=out)),
        ("empty nanobind call", _core.named_filter_list),
    ]
    if gpulab.torch_operators():
        from gpulab import _ops
        steps += [
            ("torch.ops.gpulab.sum (the registered op)", lambda: torch.ops.gpulab.sum(x)),
            ("  torch.ops.gpulab.histogram (no autograd)", lambda: torch.ops.gpulab.histogram(x.view(torch.int32), 256)),
            ("_ops.sum (the direct path alone)", lambda: _ops.sum(x, None)),
            ("_ops.sum(x, out) (direct, no allocation)", lambda: _ops.sum(x, out)),
            ("torch.compiler.is_compiling()", torch.compiler.is_compiling),
        ]
    steps += [
        ("the general path: gpulab.sum(x, stream=)", lambda: gpulab.sum(x, stream=current)),
        ("  describe the tensor (view)", lambda: _arrays.view(x, "sum", ("float32",))),
        ("  contiguity check", lambda: _arrays.contiguous(a, "sum")),
        ("  the current stream (Call)", lambda: _arrays.Call(a, None)),
        ("  torch.empty(()) for the result", lambda: call.empty((), "float32")),
        ("    torch.empty((), device=0)", lambda: torch.empty((), dtype=torch.float32, device=0)),
        ("    x.new_empty(())", lambda: x.new_empty(())),
        ("  _core.sum (library call, scratch, launch)", lambda: _core.sum(a.address, 1024, "float32", address, 0, stream)),
    ]
    for name, fn in steps:
        print(f"{name:45} {per_call_us(fn, args.calls):7.2f} us")
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
