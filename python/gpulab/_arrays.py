"""How gpulab sees the caller's arrays.

Every array becomes an `Array`: its device address, shape, strides (in elements), dtype name and
device, plus the `Framework` it came from, which makes the results (with the caller's own
allocator) and names the stream to run on (the caller's current one). PyTorch and CuPy are read
through their own attributes, a few hundred nanoseconds; any other array speaking DLPack (JAX, ...)
through DLPack, with a synchronisation before and after the call since gpulab cannot see its
stream. Nothing is ever copied: the address is the caller's memory.
"""
from __future__ import annotations

import math

from . import _core

_CUDA, _CUDA_MANAGED = 2, 13  # DLPack device types gpulab can work on
_CPU_LIKE = {1: "host memory", 3: "pinned host memory"}


class Array:
    __slots__ = ("address", "shape", "strides", "dtype", "device", "framework", "obj")

    def __init__(self, address, shape, strides, dtype, device, framework, obj):
        self.address = address
        self.shape = shape  # tuples (torch.Size is one)
        self.strides = strides
        self.dtype = dtype
        self.device = device
        self.framework = framework
        self.obj = obj

    @property
    def size(self):
        return math.prod(self.shape)

    def is_contiguous(self):
        if 0 in self.shape:  # no element: any strides will do (as in PyTorch)
            return True
        expected = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True


def stream_address(stream):
    """A raw cudaStream_t from an int, a torch.cuda.Stream (.cuda_stream) or a cupy Stream (.ptr)."""
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        value = getattr(stream, attribute, None)
        if isinstance(value, int):
            return value
    raise TypeError(f"stream must be an int (a cudaStream_t), a torch.cuda.Stream or a cupy Stream, "
                    f"not {type(stream).__name__}")


class Torch:
    name = "PyTorch"
    synchronous = False

    def __init__(self):
        import torch
        self.torch = torch
        self.names = {torch.int8: "int8", torch.int16: "int16", torch.int32: "int32", torch.int64: "int64",
                      torch.uint8: "uint8", torch.float16: "float16", torch.bfloat16: "bfloat16",
                      torch.float32: "float32", torch.float64: "float64", torch.bool: "bool"}
        for name in ("uint16", "uint32", "uint64"):  # PyTorch 2.3 and newer
            if hasattr(torch, name):
                self.names[getattr(torch, name)] = name
        self.dtypes = {v: k for k, v in self.names.items()}
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.current_stream = raw if raw is not None else (lambda device: torch.cuda.current_stream(device).cuda_stream)

    def describe(self, x, what):
        if not x.is_cuda:
            raise TypeError(f"{what} takes CUDA arrays; got a torch.Tensor on {x.device}: move it with x.cuda()")
        dtype = self.names.get(x.dtype, str(x.dtype))
        # the shape as a plain tuple, so that messages print (2, 3) as they do for CuPy and JAX
        return Array(x.data_ptr(), tuple(x.shape), x.stride(), dtype, x.get_device(), self, x)

    def stream(self, device):
        return self.current_stream(device)

    def empty(self, shape, dtype, device, like):
        # like.new_empty: 2.4 us against torch.empty's 3.0 on the H100's host (python_call_cost.py)
        out = like.new_empty(shape, dtype=self.dtypes[dtype])
        return out, out.data_ptr()

    def hand_over(self, out):
        return out


class CuPy:
    name = "CuPy"
    synchronous = False

    def __init__(self):
        import cupy
        self.cupy = cupy

    def describe(self, x, what):
        itemsize = x.itemsize
        return Array(x.data.ptr, x.shape, tuple(s // itemsize for s in x.strides), x.dtype.name, x.device.id, self, x)

    def stream(self, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.cuda.get_current_stream().ptr

    def empty(self, shape, dtype, device, like):
        with self.cupy.cuda.Device(device):
            out = self.cupy.empty(shape, dtype=dtype)
        return out, out.data.ptr

    def hand_over(self, out):
        return out


class DLPack:
    """Any other array with __dlpack__: JAX's, or nanobind's own. Results are made by gpulab
    (cudaMalloc) and handed over through DLPack, as a JAX array where the input was one."""
    synchronous = True

    def __init__(self, module):
        self.module = module
        self.name = module.split(".")[0] or "DLPack"
        self.jax = None
        if self.name in ("jax", "jaxlib"):
            import jax.dlpack
            self.jax = jax.dlpack

    def describe(self, x, what):
        ready = getattr(x, "block_until_ready", None)  # JAX: its own stream must have finished
        if ready is not None:
            ready()
        address, shape, strides, dtype, device_type, device = _core.dlpack_info(x)
        shape, strides = tuple(shape), tuple(strides)
        if device_type in _CPU_LIKE:
            raise TypeError(f"{what} takes CUDA arrays; got a {type(x).__module__}.{type(x).__name__} in "
                            f"{_CPU_LIKE[device_type]}: copy it to the GPU first")
        if device_type not in (_CUDA, _CUDA_MANAGED):
            raise TypeError(f"{what} takes CUDA arrays; got one on DLPack device type {device_type}")
        return Array(address, shape, strides, dtype or "unknown", device, self, x)

    def stream(self, device):
        return 0

    def empty(self, shape, dtype, device, like):
        return _core.empty(list(shape), dtype, device)

    def hand_over(self, out):
        return self.jax.from_dlpack(out) if self.jax is not None else out


_frameworks: dict[type, object] = {}


def framework_of(x, what):
    kind = type(x)
    found = _frameworks.get(kind)
    if found is not None:
        return found
    module = kind.__module__ or ""
    top = module.split(".")[0]
    if top == "torch" and kind.__name__ in ("Tensor", "Parameter"):
        found = Torch()
    elif top == "cupy" and kind.__name__ == "ndarray":
        found = CuPy()
    elif top == "numpy":
        raise TypeError(f"{what} takes CUDA arrays; got a numpy.{kind.__name__}, which lives in host memory: copy it "
                        f"to the GPU first (torch.from_numpy(x).cuda(), cupy.asarray(x))")
    elif hasattr(x, "__dlpack__"):
        found = DLPack(module)
    else:
        raise TypeError(f"{what} takes CUDA arrays (PyTorch, CuPy, JAX or any DLPack array); got {kind.__name__}")
    _frameworks[kind] = found
    return found


def view(x, what, dtypes=None):
    """x as an Array, its dtype checked against `dtypes` (names) where given."""
    array = framework_of(x, what).describe(x, what)
    if dtypes is not None and array.dtype not in dtypes:
        raise TypeError(f"{what}: dtype {array.dtype} is not supported; use {', '.join(dtypes)}")
    return array


def contiguous(array, what, name="the input"):
    if not array.is_contiguous():
        raise ValueError(f"{what} needs {name} contiguous; got shape {array.shape} with strides {array.strides} "
                         f"(elements): call .contiguous() (PyTorch) or cupy.ascontiguousarray()")
    return array


def rows_pitch(array, what, name):
    """The pitch in bytes of a 2-D array whose rows are each contiguous (a slice of a wider matrix
    is fine, a transposed view is not)."""
    if len(array.shape) != 2:
        raise ValueError(f"{what}: {name} must be 2-D, got shape {array.shape}")
    rows, cols = array.shape
    row_stride, col_stride = array.strides
    if rows == 0 or cols == 0:  # nothing is read or written: any strides will do
        return max(cols, 1) * itemsize(array.dtype)
    if cols > 1 and col_stride != 1 or rows > 1 and row_stride < cols:
        raise ValueError(f"{what}: {name} must have contiguous rows (strides (pitch, 1) with pitch >= columns); got "
                         f"strides {array.strides}: call .contiguous() first")
    item = itemsize(array.dtype)
    return max(row_stride, cols, 1) * item if rows > 1 else max(cols, 1) * item


def operand_layout(array, what, name):
    """(transposed, leading dimension in elements) of a 2-D matrix operand read in place: rows
    contiguous (strides (ld, 1), ld >= columns: as it is), or columns contiguous (strides (1, ld),
    ld >= rows: a transposed view, such as w.T, stored transposed). Either is fine for an empty one
    or a vector; anything else is refused."""
    if len(array.shape) != 2:
        raise ValueError(f"{what}: {name} must be 2-D, got shape {array.shape}")
    rows, cols = array.shape
    row_stride, col_stride = array.strides
    if rows == 0 or cols == 0:  # nothing is read: any strides will do
        return False, max(cols, 1)
    if (cols == 1 or col_stride == 1) and (rows == 1 or row_stride >= cols):
        return False, max(row_stride, cols) if rows > 1 else cols
    if (rows == 1 or row_stride == 1) and (cols == 1 or col_stride >= rows):
        return True, max(col_stride, rows) if cols > 1 else rows
    raise ValueError(f"{what}: {name} must have contiguous rows (strides (pitch, 1)) or contiguous columns (strides (1, pitch), "
                     f"a transposed view); got strides {array.strides}: call .contiguous() first")


def itemsize(dtype):
    return {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2}.get(dtype, 8 if dtype.endswith("64") else 4)


def same_device(what, *arrays):
    first = arrays[0]
    for other in arrays[1:]:
        if other.device != first.device:
            raise ValueError(f"{what}: arrays on devices {first.device} and {other.device}; put them on one GPU")


def mutable(array, what, name):
    if isinstance(array.framework, DLPack) and array.framework.jax is not None:
        raise TypeError(f"{what} writes {name} in place, and JAX arrays are immutable: leave out= (or use a "
                        f"PyTorch or CuPy array)")
    return array


class Call:
    """The stream a call runs on and what to do around it: the caller's current stream unless one is
    given; for DLPack-only arrays the legacy default stream and a wait for the result."""
    __slots__ = ("framework", "device", "stream", "like")

    def __init__(self, array, stream):
        self.framework = array.framework
        self.device = array.device
        self.like = array.obj
        self.stream = self.framework.stream(array.device) if stream is None else stream_address(stream)

    def empty(self, shape, dtype):
        return self.framework.empty(shape, dtype, self.device, self.like)

    def output(self, out, shape, dtype, what, strided_rows=False):
        """(array, its Array) for a result of `shape` and `dtype`: a new contiguous one, or the
        caller's `out` checked: that dtype and shape (for a 0-d result, any array of one element),
        the call's device, mutable, and contiguous unless `strided_rows` (the caller then checks
        its rows, as it does its inputs')."""
        if out is None:
            made, address = self.framework.empty(shape, dtype, self.device, self.like)
            strides, step = [], 1
            for extent in reversed(shape):
                strides.append(step)
                step *= extent
            return made, Array(address, tuple(shape), tuple(reversed(strides)), dtype, self.device, self.framework, made)
        o = mutable(view(out, what, (dtype,)), what, "out")
        if not strided_rows:
            contiguous(o, what, "out")
        if tuple(o.shape) != tuple(shape) and not (shape == () and o.size == 1):
            raise ValueError(f"{what}: out must have shape {tuple(shape)}, got {tuple(o.shape)}")
        if o.device != self.device:
            raise ValueError(f"{what}: out is on device {o.device}, the input on {self.device}")
        return out, o

    def done(self, out):
        if not self.framework.synchronous:
            return out
        _core.synchronize(self.device, self.stream)
        return self.framework.hand_over(out)
