"""gpulab inside PyTorch programs: the functions as operators (torch.ops.gpulab.*), with their fake
implementations and gradients, and the route a call on PyTorch tensors takes.

The operators and their direct path are C++ (gpulab._ops, python/_ops.cpp), built where torch was
importable when gpulab was built. With them, gpulab.<function>(tensor, ...):
- in eager mode, on plain CUDA tensors that need no gradient, runs the operator's implementation
  straight from Python, without the dispatcher (the cheapest call);
- under torch.compile or torch.export, or where a gradient is wanted, calls torch.ops.gpulab.<name>,
  which the compiler sees as one opaque operator (the fakes below give it shapes and dtypes) and
  autograd differentiates (sum, the scans and the segmented scan, transpose, add, sgemm: their
  gradients are C++, in _ops.cpp, calling the library again);
- anything else (CuPy or JAX arrays, stream=, a bad argument) takes the general path, which runs it
  or says what is wrong.
Without torch, or without gpulab._ops, nothing is registered and every call takes the general path.
"""
from __future__ import annotations

try:
    import torch
except ImportError:  # CuPy or JAX only: nothing to register
    torch = None

direct = None  # the C++ direct path: gpulab._ops, where it is built
unavailable = "PyTorch is not installed" if torch is None else None
if torch is not None:
    try:
        from . import _ops as direct
    except ImportError as error:  # built without PyTorch there, or against another version of it
        unavailable = f"gpulab._ops is not usable ({error}); reinstall gpulab with pip install --no-build-isolation"

available = direct is not None
ops = torch.ops.gpulab if available else None


def run(direct_path, operator, *args):
    """A call on the PyTorch way: the direct path (eager mode), else the operator (torch.compile, a
    gradient wanted), else NotImplemented: the general path then runs it or says what is wrong. One
    Python frame between the caller and the direct path: a call's host time is what is measured."""
    if not torch.compiler.is_compiling():
        result = direct_path(*args)
        if result is not None:
            return result
    return operator(*args)


def _operator_wanted(out, *tensors):
    """Under torch.compile, or where autograd must see the call (no out=, grad mode on, an input
    that requires a gradient)."""
    return torch.compiler.is_compiling() or (out is None and torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in tensors))


def _functional(op, out, *args):
    if out is None:
        return op(*args)
    op.out(*args, out=out)
    return out


# The operator forms, for run(): each the operator's result, or NotImplemented where no operator is
# wanted. Functions without a gradient take the operator only under torch.compile.

def sum(x, out):  # noqa: A001
    return _functional(ops.sum, out, x) if _operator_wanted(out, x) else NotImplemented


def histogram(values, bins, out):
    return _functional(ops.histogram, out, values, bins) if _operator_wanted(out) else NotImplemented


def atax(a, x, out):
    return _functional(ops.atax, out, a, x) if _operator_wanted(out) else NotImplemented


def scan(x, inclusive, out):
    if not _operator_wanted(out, x):
        return NotImplemented
    return _functional(ops.inclusive_scan if inclusive else ops.exclusive_scan, out, x)


def segmented_scan(x, segments, by, exclusive, out):
    return _functional(ops.segmented_scan, out, x, segments, by, exclusive) if _operator_wanted(out, x) else NotImplemented


def histogram_range(values, bins, lo, hi, per_row, out):
    return _functional(ops.histogram_range, out, values, bins, lo, hi, per_row) if _operator_wanted(out) else NotImplemented


def histogram_edges(values, bins, edges, per_row, out):
    return _functional(ops.histogram_edges, out, values, bins, edges, per_row) if _operator_wanted(out) else NotImplemented


def histogram_weighted(values, bins, weights, out):
    return _functional(ops.histogram_weighted, out, values, bins, weights) if _operator_wanted(out) else NotImplemented


def transpose(a, out):
    return _functional(ops.transpose, out, a) if _operator_wanted(out, a) else NotImplemented


def add(a, b, alpha, beta, out):
    return _functional(ops.add, out, a, b, alpha, beta) if _operator_wanted(out, a, b) else NotImplemented


def zero_triangle(m, part):
    if not _operator_wanted(m):  # (m is no out=: nothing to differentiate in place)
        return NotImplemented
    ops.zero_triangle_(m, part)
    return m


def sgemm(a, b, c, alpha, beta, precision):
    if not _operator_wanted(c, a, b):
        return NotImplemented
    if c is None:
        return ops.sgemm(a, b, alpha, precision)
    ops.sgemm_(a, b, c, alpha, beta, precision)
    return c


def conv3x3(image, weights, divisor, border, out):
    return _functional(ops.conv3x3, out, image, weights, divisor, border) if _operator_wanted(out) else NotImplemented


# ---- what torch.compile and torch.export need: fake implementations ------------------------------
# A fake gives the result's shape, dtype and device from the inputs' alone (symbolic sizes
# included), so a compiled program can plan around the operator without running it. Fakes check
# nothing: a bad argument is found when the operator runs, by the same checks as an eager call
# (_ops.cpp), so that it raises the same exception (an error raised while tracing would come out of
# torch.compile as its own TorchRuntimeError). Where the inputs' dimensions make no result, a fake
# answers any tensor: the operator raises before it is used.

def _register_fakes():
    fake = torch.library.register_fake

    def nothing(*args, **kwargs):  # the mutating forms return nothing
        return None

    for name in ("sum.out", "histogram.out", "atax.out", "inclusive_scan.out", "exclusive_scan.out", "transpose.out",
                 "add.out", "zero_triangle_", "sgemm_", "conv3x3.out", "segmented_scan.out", "histogram_weighted.out",
                 "histogram_range.out", "histogram_edges.out"):
        fake(f"gpulab::{name}")(nothing)

    fake("gpulab::sum")(lambda x: x.new_empty(()))
    fake("gpulab::histogram")(lambda values, bins: values.new_empty((max(bins, 0),), dtype=torch.uint32))
    fake("gpulab::atax")(lambda a, x: a.new_empty((a.shape[-1] if a.dim() > 0 else 0,)))

    def scan_result(x):
        return x.new_empty(x.shape, dtype=x.dtype if x.dtype.is_floating_point else torch.int32)

    fake("gpulab::inclusive_scan")(scan_result)
    fake("gpulab::exclusive_scan")(scan_result)
    fake("gpulab::segmented_scan")(lambda x, segments, by="heads", exclusive=False: scan_result(x))
    fake("gpulab::histogram_weighted")(lambda values, bins, weights: weights.new_empty((max(bins, 0),)))
    def float_counts(values, bins, per_row):
        shape = (values.shape[0], max(bins, 0)) if per_row and values.dim() == 2 else (max(bins, 0),)
        return values.new_empty(shape, dtype=torch.uint32)

    fake("gpulab::histogram_range")(lambda values, bins, lo, hi, per_row=False: float_counts(values, bins, per_row))
    fake("gpulab::histogram_edges")(lambda values, bins, edges, per_row=False: float_counts(values, bins, per_row))
    fake("gpulab::transpose")(lambda a: a.new_empty((a.shape[1], a.shape[0]) if a.dim() == 2 else (0, 0)))
    fake("gpulab::add")(lambda a, b, alpha=1.0, beta=1.0: a.new_empty(a.shape))
    fake("gpulab::sgemm")(lambda a, b, alpha=1.0, precision="fp32": a.new_empty(
        tuple(a.shape[:-1]) + (b.shape[-1],) if a.dim() == b.dim() and a.dim() in (2, 3) else (0, 0)))
    fake("gpulab::conv3x3")(lambda image, weights, divisor, border="replicate": image.new_empty(image.shape))


if available:
    _register_fakes()
