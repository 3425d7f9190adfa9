"""gpulab: checked, fast GPU primitives over the arrays you already have.

    import torch, gpulab
    x = torch.randn(2**28, device="cuda")
    s = gpulab.sum(x)                      # a 0-d torch.Tensor on the same GPU

Every function takes CUDA arrays of PyTorch, CuPy, JAX or anything speaking DLPack, reads them where
they are (no copy), returns results as the caller's kind of array, and runs on the caller's current
stream (PyTorch's or CuPy's; `stream=` to name another), so it is ordered with the caller's own work
and never synchronises. JAX and other DLPack-only arrays run on the default stream and are waited
for. Bad input raises TypeError (not a CUDA array, wrong dtype) or ValueError (shapes, strides,
values); failures of the library raise gpulab.Error, gpulab.OutOfMemoryError or
gpulab.NoDeviceError. docs/python.md has an example per function and its measured speed.
"""
from __future__ import annotations

import math

from . import _core, _torch
from ._arrays import Array, Call, mutable, operand_layout, rows_pitch, same_device, view, contiguous
from ._core import Error, NoDeviceError, OutOfMemoryError
from .report import Report, load_report

__version__ = "0.1.0"
__all__ = ["sum", "histogram", "atax", "inclusive_scan", "exclusive_scan", "segmented_scan", "transpose", "add", "zero_triangle", "sgemm",
           "sgemm_precision_supported", "conv3x3", "device_count", "require_device", "torch_operators", "load_report", "Report", "Error", "NoDeviceError", "OutOfMemoryError"]

_SUM_TYPES = ("int32", "float32", "float64")
_SCAN_TYPES = ("int8", "int16", "int32", "float32", "float64")


def device_count() -> int:
    """CUDA devices present (0 without a GPU or a driver)."""
    return _core.device_count()


def require_device() -> None:
    """Raises NoDeviceError where no CUDA device can be used."""
    if _core.device_count() == 0:
        raise NoDeviceError("no usable CUDA device: gpulab needs an NVIDIA GPU and its driver")


def torch_operators() -> bool:
    """Whether gpulab's functions are PyTorch operators here (torch.ops.gpulab.*: torch.compile,
    torch.export, autograd); where not, _torch.unavailable says why."""
    return _torch.available


# Each function: where gpulab's PyTorch operators are built, a call without stream= tries the PyTorch
# way first (gpulab/_torch.py: the direct path for eager calls on tensors, the operator under
# torch.compile or for autograd); NotImplemented from it means the general path below runs the call
# (CuPy, JAX, ...) or says what is wrong with it.

def sum(x, *, out=None, stream=None):  # noqa: A001 - the name users look for
    """The sum of all elements of x (int32, float32 or float64; any shape, contiguous) as a 0-d array
    of x's dtype (or into out=, a 0-d or 1-element array of that dtype). int32 wraps modulo 2^32;
    floats are deterministic (same input, same device, same bits) and within k·ε·Σ|x| of the exact
    sum (docs/reduce.md). Differentiable (PyTorch)."""
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.sum, _torch.sum, x, out)
        if result is not NotImplemented:
            return result
    a = contiguous(view(x, "gpulab.sum", _SUM_TYPES), "gpulab.sum")
    call = Call(a, stream)
    result, o = call.output(out, (), a.dtype, "gpulab.sum")
    _core.sum(a.address, a.size, a.dtype, o.address, a.device, call.stream)
    return call.done(result)


def histogram(values, bins: int, *, weights=None, range=None, edges=None, dim=None, dtype=None, out=None, stream=None):
    """Counts of int32 values in `bins` bins as a uint32 array of length bins (or into out=): value v
    goes to bin ((v % bins) + bins) % bins (negative values too). Exact; 1 <= bins < 2^32, fewer than
    2^32 values; dtype="uint64" (or a uint64 out=): 64-bit counts of any number of values.
    Float values (float32, float64) with range=(lo, hi): torch.histc's bins (equal widths, hi in the
    last, values outside and NaN not counted); with edges= (bins + 1 sorted edges of the values'
    dtype): torch.histogram's (edges[b] <= v < edges[b + 1], the last bin closed); dim=-1 (or 1) with
    a 2-D input: a histogram per row in one call, (rows, bins) counts.
    weights= (float32 or float64, values' shape): each bin's sum of its values' weights instead, of
    the weights' dtype, the same bits on every call: the exact sum rounded once up to about 14 000
    bins (float32) or 330 (float64) on an H100, the same bits on every GPU; past them summed in
    float64 in a fixed order and rounded once (past about 29 000 bins the weights are sorted by bin
    first: about 24 bytes of scratch a value)."""
    what = "gpulab.histogram"
    if isinstance(bins, bool) or not isinstance(bins, int) or not 1 <= bins < 2**32:
        raise ValueError(f"{what}: bins must be an integer from 1 to 2^32 - 1, got {bins!r}")
    if range is not None or edges is not None:
        return _histogram_float(values, bins, range, edges, dim, weights, dtype, out, stream, what)
    if dim is not None:
        raise ValueError(f"{what}: dim= (a histogram per row) goes with range= or edges=")
    if dtype is None and out is not None and weights is None:  # (its dtype's name alone: under torch.compile out= is fake)
        dtype = "uint64" if str(getattr(out, "dtype", "")).endswith("uint64") else None
    if dtype is not None and dtype not in ("uint32", "uint64"):
        raise ValueError(f"{what}: dtype must be 'uint32' or 'uint64', got {dtype!r}")
    if dtype == "uint64":
        if weights is not None:
            raise ValueError(f"{what}: dtype= is the counts'; with weights= the sums take the weights' dtype")
        a = contiguous(view(values, what, ("int32",)), what)
        call = Call(a, stream)
        result, o = call.output(out, (bins,), "uint64", what)
        _core.histogram(a.address, a.size, bins, o.address, a.device, call.stream, "uint64")
        return call.done(result)
    if weights is not None:
        if stream is None and _torch.available:
            result = _torch.run(_torch.direct.histogram_weighted, _torch.histogram_weighted, values, bins, weights, out)
            if result is not NotImplemented:
                return result
        return _histogram_weighted(values, bins, weights, out, stream, what)
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.histogram, _torch.histogram, values, bins, out)
        if result is not NotImplemented:
            return result
    a = contiguous(view(values, what, ("int32",)), what)
    if a.size >= 2**32:
        raise ValueError(f"{what}: {a.size} values; at most 2^32 - 1 (a count could overflow uint32)")
    call = Call(a, stream)
    result, o = call.output(out, (bins,), "uint32", what)
    _core.histogram(a.address, a.size, bins, o.address, a.device, call.stream)
    return call.done(result)


def _histogram_float(values, bins, value_range, edges, dim, weights, dtype, out, stream, what):
    if value_range is not None and edges is not None:
        raise ValueError(f"{what}: range= or edges=, not both")
    if weights is not None or dtype not in (None, "uint32"):
        raise ValueError(f"{what}: with range= or edges=, counts in uint32 (no weights=, no dtype=) for now")
    if dim not in (None, -1, 1):
        raise ValueError(f"{what}: dim must be -1 or 1 (a histogram per row of a 2-D input), got {dim!r}")
    per_row = dim is not None
    if stream is None and _torch.available:
        if edges is not None:
            result = _torch.run(_torch.direct.histogram_edges, _torch.histogram_edges, values, bins, edges, per_row, out)
        else:  # (a range that is not a pair of numbers: the general path says so, after the values' checks)
            pair = _pair(value_range)
            result = NotImplemented if pair is None else _torch.run(
                _torch.direct.histogram_range, _torch.histogram_range, values, bins, *pair, per_row, out)
        if result is not NotImplemented:
            return result
    a = contiguous(view(values, what, ("float32", "float64")), what, "values")
    if a.size >= 2**32 or bins >= 2**32 - 1:
        raise ValueError(f"{what}: at most 2^32 - 1 values and 2^32 - 2 bins with range= or edges=")
    if per_row and len(a.shape) != 2:
        raise ValueError(f"{what}: dim= takes a 2-D input (a histogram per row), got shape {a.shape}")
    rows = a.shape[0] if per_row else 1
    if rows < 1 or rows * (bins + 1) >= 2**32:
        raise ValueError(f"{what}: {rows} rows of {bins} bins; at least one row, and rows * (bins + 1) below 2^32")
    lo = hi = 0.0
    edge_address = 0
    if edges is not None:
        e = contiguous(view(edges, what, (a.dtype,)), what, "edges")
        same_device(what, a, e)
        if e.shape != (bins + 1,):
            raise ValueError(f"{what}: edges must have bins + 1 = {bins + 1} elements, got shape {e.shape}")
        edge_address = e.address
    else:
        pair = _pair(value_range)
        if pair is None:
            raise ValueError(f"{what}: range must be a pair (lo, hi) of numbers, got {value_range!r}")
        lo, hi = pair
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"{what}: range must be finite with lo < hi, got ({lo:g}, {hi:g})")
    call = Call(a, stream)
    result, o = call.output(out, (rows, bins) if per_row else (bins,), "uint32", what)
    _core.histogram_float(a.address, rows, a.size // rows, bins, a.dtype, lo, hi, edge_address, o.address, a.device, call.stream)
    return call.done(result)


def _pair(value_range):
    """(lo, hi) as floats, or None where value_range is not a pair of numbers."""
    try:
        lo, hi = (float(x) for x in value_range)
    except (TypeError, ValueError):
        return None
    return lo, hi


def _histogram_weighted(values, bins, weights, out, stream, what):
    a = contiguous(view(values, what, ("int32",)), what, "values")
    w = contiguous(view(weights, what, ("float32", "float64")), what, "weights")
    same_device(what, a, w)
    if w.shape != a.shape:
        raise ValueError(f"{what}: weights must have the values' shape {a.shape}, got {w.shape}")
    call = Call(a, stream)
    result, o = call.output(out, (bins,), w.dtype, what)
    _core.histogram_weighted(a.address, w.address, a.size, bins, w.dtype, o.address, a.device, call.stream)
    return call.done(result)


def atax(a, x, *, out=None, stream=None):
    """y = Aᵀ(A·x) for a row-major float32 matrix A (rows × cols, contiguous) and x of length cols;
    y has length cols. Deterministic; one pass over A for 128 <= cols <= 16384 (docs/atax.md)."""
    what = "gpulab.atax"
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.atax, _torch.atax, a, x, out)
        if result is not NotImplemented:
            return result
    ma = contiguous(view(a, what, ("float32",)), what, "A")
    vx = contiguous(view(x, what, ("float32",)), what, "x")
    same_device(what, ma, vx)
    if len(ma.shape) != 2 or min(ma.shape) < 1 or max(ma.shape) >= 2**31:
        raise ValueError(f"{what}: A must be a 2-D matrix with 1 to 2^31 - 1 rows and columns, got shape {ma.shape}")
    rows, cols = ma.shape
    if vx.shape != (cols,):
        raise ValueError(f"{what}: x must have shape ({cols},) for A of shape {ma.shape}, got {vx.shape}")
    call = Call(ma, stream)
    result, o = call.output(out, (cols,), "float32", what)
    _core.atax(ma.address, vx.address, rows, cols, o.address, ma.device, call.stream)
    return call.done(result)


def _scan_result_type(dtype):
    """What a scan of dtype produces: int32 for the integers, the type itself for floats."""
    return "int32" if dtype.startswith("int") else dtype


def _scan(x, inclusive, what, out, stream):
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.scan, _torch.scan, x, inclusive, out)
        if result is not NotImplemented:
            return result
    a = contiguous(view(x, what, _SCAN_TYPES), what)
    call = Call(a, stream)
    result, o = call.output(out, a.shape, _scan_result_type(a.dtype), what)
    _core.scan(a.address, a.dtype, o.address, a.size, inclusive, a.device, call.stream)
    return call.done(result)


def inclusive_scan(x, *, out=None, stream=None):
    """out[i] = x[0] + ... + x[i] over x in memory order (any shape, contiguous; the result has x's
    shape). int8/int16/int32 are summed into int32 (wrapping modulo 2^32); float32 and float64 in
    their own type, deterministically. out= may be x itself (in place) where the types match.
    Differentiable for floats (PyTorch)."""
    return _scan(x, True, "gpulab.inclusive_scan", out, stream)


def exclusive_scan(x, *, out=None, stream=None):
    """out[0] = 0, out[i] = x[0] + ... + x[i-1]; otherwise as inclusive_scan."""
    return _scan(x, False, "gpulab.exclusive_scan", out, stream)


_HEAD_TYPES = ("bool", "uint8", "int8")


_INDEX_TYPES = ("int32", "int64")


def segmented_scan(x, heads=None, *, keys=None, offsets=None, exclusive=False, out=None, stream=None):
    """Prefix sums of x restarted at every segment, in memory order. The segments, one of:
    heads (bool, uint8 or int8, x's shape): one starts at element 0 and wherever heads is nonzero;
    keys= (int32 or int64, x's shape): runs of equal keys, one starting wherever a key differs from
    the one before (CUB's scan by key); offsets= (int32 or int64, 1-D, any length): one starts at
    each offset, in any order, those outside [0, x.size) skipped (CSR row pointers as they are; a
    temporary flag a element). Inclusive: out[i] = x[h] + ... + x[i], h the first element of i's
    segment; exclusive=True: the sum before i within its segment (0 at a segment's start). Types,
    wrapping and determinism as inclusive_scan; out= may be x itself where the types match. Every
    array contiguous; no copy of any."""
    what = "gpulab.segmented_scan"
    given = [name for name, v in (("heads", heads), ("keys", keys), ("offsets", offsets)) if v is not None]
    if len(given) != 1:
        raise ValueError(f"{what}: give the segments one way: heads, keys= or offsets= (got {', '.join(given) or 'none'})")
    by = given[0]
    segments = {"heads": heads, "keys": keys, "offsets": offsets}[by]
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.segmented_scan, _torch.segmented_scan, x, segments, by, exclusive, out)
        if result is not NotImplemented:
            return result
    a = contiguous(view(x, what, _SCAN_TYPES), what, "x")
    s = contiguous(view(segments, what,
                        _HEAD_TYPES if by == "heads" else _INDEX_TYPES), what, by)
    same_device(what, a, s)
    if by == "offsets" and len(s.shape) != 1:
        raise ValueError(f"{what}: offsets must be 1-D, got shape {s.shape}")
    if by != "offsets" and s.shape != a.shape:
        raise ValueError(f"{what}: {by} must have x's shape {a.shape}, got {s.shape}")
    call = Call(a, stream)
    result, o = call.output(out, a.shape, _scan_result_type(a.dtype), what)
    _core.scan(a.address, a.dtype, o.address, a.size, not exclusive, a.device, call.stream, segmented_by=by,
               segments=s.address, offset_count=s.size if by == "offsets" else 0, index_dtype=s.dtype)
    return call.done(result)


def _rows(a, what, name):
    """(address, rows, cols, pitch in bytes) of a 2-D Array with contiguous rows."""
    pitch = rows_pitch(a, what, name)
    return a.address, a.shape[0], a.shape[1], pitch


def _matrix(m, what, name):
    """The float32 matrix m as an Array and as _rows' tuple."""
    a = view(m, what, ("float32",))
    return a, _rows(a, what, name)


def _member(array):
    """The first matrix of a 3-D batch, as an Array (every member's layout is its)."""
    return Array(array.address, tuple(array.shape[1:]), tuple(array.strides[1:]), array.dtype, array.device, array.framework, array.obj)


def _output(call, out, shape, what):
    """A new float32 result of `shape`, or the caller's `out` (rows may be strided), and its rows."""
    result, o = call.output(out, shape, "float32", what, strided_rows=True)
    return result, _rows(o, what, "out")


def transpose(a, *, out=None, stream=None):
    """aᵀ of a float32 matrix (rows may be strided: a slice of a wider matrix works). out=: write into
    this (cols × rows) array instead; out=a transposes a square matrix in place. Exact.
    Differentiable (PyTorch)."""
    what = "gpulab.transpose"
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.transpose, _torch.transpose, a, out)
        if result is not NotImplemented:
            return result
    ma, da = _matrix(a, what, "a")
    call = Call(ma, stream)
    result, db = _output(call, out, (ma.shape[1], ma.shape[0]), what)
    _core.transpose(da, db, ma.device, call.stream)
    return call.done(result)


def add(a, b, *, alpha: float = 1.0, beta: float = 1.0, out=None, stream=None):
    """alpha·a + beta·b, element by element, for two float32 matrices of one shape (rows may be
    strided); alpha and beta are taken as float32, each element is fma(alpha, a, beta·b) (two
    roundings). out= may be a or b. Differentiable (PyTorch)."""
    what = "gpulab.add"
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.add, _torch.add, a, b, float(alpha), float(beta), out)
        if result is not NotImplemented:
            return result
    ma, da = _matrix(a, what, "a")
    mb, db = _matrix(b, what, "b")
    same_device(what, ma, mb)
    if ma.shape != mb.shape:
        raise ValueError(f"{what}: a and b differ in shape: {ma.shape} and {mb.shape}")
    call = Call(ma, stream)
    result, dc = _output(call, out, ma.shape, what)
    _core.add(float(alpha), da, float(beta), db, dc, ma.device, call.stream)
    return call.done(result)


def zero_triangle(m, part: str = "upper", *, stream=None):
    """Sets the elements strictly above (part="upper") or below ("lower") the main diagonal of a
    float32 matrix to 0, in place, and returns m."""
    what = "gpulab.zero_triangle"
    if part not in ("upper", "lower"):
        raise ValueError(f"{what}: part must be 'upper' or 'lower', got {part!r}")
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.zero_triangle, _torch.zero_triangle, m, part)
        if result is not NotImplemented:
            return result
    mm, dm = _matrix(m, what, "m")
    mutable(mm, what, "m")
    call = Call(mm, stream)
    _core.zero_triangle(dm, part == "upper", mm.device, call.stream)
    return call.done(m)


_SGEMM_PRECISIONS = ("fp32", "fp32_tensor", "tf32")


def sgemm(a, b, c=None, *, alpha: float = 1.0, beta: float = 0.0, precision: str = "fp32", stream=None):
    """alpha·(a @ b) + beta·c in float32 (alpha and beta taken as float32): a is m × k, b k × n,
    or both batches of them (3-D, batch first, as torch.bmm: a strided batch, one call). Without
    c, a new m × n (or batch × m × n) result (beta must be 0); with c, c is updated in place and
    returned. Rows may be strided (leading dimensions), and a and b may be transposed views
    (x @ w.T, the form of a linear layer; a.transpose(1, 2) in a batch): read in place, never
    copied. alpha = 0 reads neither a nor b (their NaN and Inf do not reach the result), as in
    BLAS. Differentiable without c (PyTorch; the gradients at the same precision, on transposed
    views).

    precision (include/gpulab/sgemm.hpp, docs/sgemm.md):
    - "fp32" (the default): the CUDA cores, no TF32. Each element is one FMA chain over k: within
      γ(k+2)·(|α||A||B| + |β||C|) and bitwise reproducible on one device.
    - "fp32_tensor": FP32-accurate on the tensor cores where the GPU and the shape make that faster
      (Hopper, A100; else "fp32"): 3xTF32, or on Hopper for k ≥ 4096 and m·n·k ≥ 2^36 (k ≥ 2048
      and 2^37) the Ozaki scheme on INT8 tensor cores, guarded element by element; either way within
      (γ(6k+4) + 2^−20)·(|α||A||B| + |β||C|), reproducible per device; each row of a and column of b
      scaled by a power of two first, so subnormal and huge values keep the bound; ±Inf and NaN
      reach the result as with "fp32".
    - "tf32": one TF32 product on the tensor cores: 11 significant bits of each input, for speed,
      not FP32 accuracy. On Hopper it is cuBLAS's TF32 GEMM (the copy PyTorch or CuPy loaded, or
      the CUDA toolkit's) but where gpulab's own kernels were measured faster; elsewhere gpulab's
      own where faster, else "fp32". GPUs without TF32 tensor cores (compute capability 7.5, the
      T4) refuse it: sgemm_precision_supported says so beforehand.
    Which tensor cores each GPU family uses: include/gpulab/sgemm.hpp."""
    what = "gpulab.sgemm"
    if c is None and beta != 0:
        raise ValueError(f"{what}: beta = {beta} needs c")
    if precision not in _SGEMM_PRECISIONS:
        raise ValueError(f"{what}: precision must be 'fp32', 'fp32_tensor' or 'tf32', got {precision!r}")
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.sgemm, _torch.sgemm, a, b, c, float(alpha), float(beta), precision)
        if result is not NotImplemented:
            return result
    ma, mb = view(a, what, ("float32",)), view(b, what, ("float32",))
    if len(ma.shape) != len(mb.shape) or len(ma.shape) not in (2, 3):
        raise ValueError(f"{what}: a and b must be matrices (2-D) or batches of them (3-D), got shapes {tuple(ma.shape)} and "
                         f"{tuple(mb.shape)}")
    batched = len(ma.shape) == 3
    batch = ma.shape[0] if batched else 1  # a matrix is a batch of one
    if batched and mb.shape[0] != batch:
        raise ValueError(f"{what}: batches of {batch} and {mb.shape[0]} matrices")
    same_device(what, ma, mb)
    (m, k), (k2, n) = ma.shape[-2:], mb.shape[-2:]
    if k != k2:
        raise ValueError(f"{what}: a is {m} x {k} and b is {k2} x {n}: the inner sizes differ")
    member = _member if batched else (lambda x: x)  # a batch's members each have its first one's layout
    if batch > 0:  # (an empty batch reads and writes nothing)
        a_transposed, lda = operand_layout(member(ma), what, "a")
        b_transposed, ldb = operand_layout(member(mb), what, "b")
    call = Call(ma, stream)
    result, o = call.output(c, tuple(ma.shape[:-1]) + (n,), "float32", what, strided_rows=True)
    if batch > 0:
        strides = (ma.strides[0], mb.strides[0], o.strides[0]) if batched else (0, 0, 0)
        if min(strides) < 0:
            raise ValueError(f"{what}: a batch's members must follow one another (strides {strides[0]}, {strides[1]} and "
                             f"{strides[2]} elements): call .copy() or cupy.ascontiguousarray() first")
        dc = _rows(member(o), what, "out")
        _core.sgemm_strided_batched(m, n, k, float(alpha), ma.address, lda, strides[0], a_transposed, mb.address, ldb, strides[1],
                                    b_transposed, float(beta), dc[0], dc[3] // 4, strides[2], batch, precision, ma.device, call.stream)
    return call.done(result)


def sgemm_precision_supported(precision: str, device: int = None) -> bool:
    """Whether sgemm runs with this precision on the device (the current one by default): "tf32"
    needs TF32 tensor cores (compute capability 8.0 and newer); "fp32" and "fp32_tensor" run
    everywhere."""
    if precision not in _SGEMM_PRECISIONS:
        raise ValueError(f"gpulab.sgemm_precision_supported: precision must be 'fp32', 'fp32_tensor' or 'tf32', got {precision!r}")
    require_device()
    return _core.sgemm_precision_supported(precision, -1 if device is None else int(device))


# The library's named filters, read once (a call into the module inside a compiled function would
# break its graph).
_NAMED_FILTERS = {name: _core.named_filter(name) for name in _core.named_filter_list().split(", ")}


def _filter(spec, what):
    if isinstance(spec, str):
        named = _NAMED_FILTERS.get(spec)
        if named is None:
            raise ValueError(f"{what}: unknown filter {spec!r}; the names are {_core.named_filter_list()}, or give "
                             f"nine integer weights and divisor=")
        return named
    weights = [int(w) for w in spec]
    if len(weights) != 9 or any(w != v for w, v in zip(weights, spec)):
        raise ValueError(f"{what}: a 3x3 filter is nine integers (row by row), got {spec!r}")
    return weights, None


def conv3x3(image, filter="sharpen", *, divisor: int | None = None, border: str = "replicate", out=None, stream=None):
    """A 3x3 integer filter over an 8-bit RGB image of shape (height, width, 3) (rows may be
    strided). filter: a name (box, gaussian, sharpen, edge, emboss) or nine integer weights, row by
    row; divisor: what the weighted sum is divided by (rounded to nearest, ties away from zero, then
    clamped to 0..255); border: replicate, zero or mirror. Exact: the same bytes as the CPU."""
    what = "gpulab.conv3x3"
    weights, named_divisor = _filter(filter, what)
    divisor = divisor if divisor is not None else (named_divisor if named_divisor is not None else 1)
    if border not in ("replicate", "zero", "mirror"):
        raise ValueError(f"{what}: border must be replicate, zero or mirror, got {border!r}")
    if divisor == 0:
        raise ValueError(f"{what}: the divisor is 0")
    if stream is None and _torch.available:
        result = _torch.run(_torch.direct.conv3x3, _torch.conv3x3, image, weights, int(divisor), border, out)
        if result is not NotImplemented:
            return result
    img = view(image, what, ("uint8",))
    height, width, pitch = _image(img, what, "image")
    call = Call(img, stream)
    result, o = call.output(out, img.shape, "uint8", what, strided_rows=True)
    _core.conv3x3(img.address, pitch, o.address, _image(o, what, "out")[2], width, height, weights, int(divisor), border, img.device,
                  call.stream)
    return call.done(result)


def _image(img, what, name):
    if len(img.shape) != 3 or img.shape[2] != 3 or min(img.shape) < 1:
        raise ValueError(f"{what}: {name} must have shape (height, width, 3) of 8-bit RGB, got {img.shape}")
    height, width, _ = img.shape
    row, pixel, channel = img.strides
    if channel != 1 or pixel != 3 or height > 1 and row < 3 * width:
        raise ValueError(f"{what}: {name} must store each row's pixels contiguously (strides (pitch, 3, 1)); got "
                         f"{img.strides}: call .contiguous() first")
    return height, width, max(row, 3 * width)
