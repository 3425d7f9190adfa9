"""A fuzz run of gpulab's Python functions on a GPU: random shapes (empty, one element,
odd, strided rows), dtypes (a few unsupported ones, which must raise TypeError), routes (PyTorch's
direct path, the operator under autograd, CuPy arrays through the general path, an explicit
stream=) and values (unit, tiny, subnormal, huge, rows and elements of powers of two apart, zeros,
NaN and ±Inf), each call checked against an independent reference: float64 (PyTorch's, on the GPU,
for the products and prefix sums) or exact (NumPy on the CPU for histograms and filters; torch.histc
for float values into equal bins, whose rule gpulab's follows).

    python3 python/tests/fuzz.py --calls 100000 --seed 1 --json fuzz.json

A float result passes where it lies within its function's documented bound of the float64 result
(plus FP32's underflow: each operation in the subnormal range may add 2^-150), where that result is
NaN or ±Inf it must be the same, and where the exact result's magnitudes exceed FP32's range any
value passes (overflow is allowed there). Exit code 1 when a call failed.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
import traceback
from collections import Counter

import numpy as np
import torch

import gpulab
from references import conv_reference, gamma

try:
    import cupy
except ImportError:  # the CuPy route is then left out
    cupy = None

U32, U64 = 2.0**-24, 2.0**-53
TINY32 = 2.0**-149  # FP32's smallest subnormal
MAX = {torch.float32: float(np.finfo(np.float32).max), torch.float64: float(np.finfo(np.float64).max)}
NP = {torch.float32: np.float32, torch.float64: np.float64, torch.int8: np.int8, torch.int16: np.int16, torch.int32: np.int32,
      torch.uint8: np.uint8}
KINDS = ["unit", "unit", "integers", "tiny", "subnormal", "huge", "rows", "elements", "zeros", "specials"]


class Failure(Exception):
    pass


class Fuzz:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.calls = Counter()
        self.failures = Counter()
        self.examples = []
        # The precisions this GPU runs (tf32 needs TF32 tensor cores: not on sm_75).
        self.sgemm_precisions = [p for p in ("fp32", "fp32_tensor", "tf32") if gpulab.sgemm_precision_supported(p)]

    # ---- inputs ---------------------------------------------------------------------------------

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]

    def side(self, small=300):
        """A dimension: mostly small and awkward, sometimes 0 or 1, now and then large."""
        r = self.rng.random()
        if r < 0.05:
            return 0
        if r < 0.15:
            return 1
        if r < 0.97:
            return int(self.rng.integers(2, small))
        return int(self.rng.integers(small, 8 * small))

    def floats(self, shape, dtype=torch.float32, kind=None):
        kind = kind or self.pick(KINDS)
        x = self.rng.uniform(-1.0, 1.0, size=shape)
        wide = dtype == torch.float64
        if kind == "integers":
            x = np.round(x * 8)
        elif kind == "tiny":
            x *= 2.0 ** (-900 if wide else -100)
        elif kind == "subnormal":
            x *= 2.0 ** (-1060 if wide else -135)
        elif kind == "huge":
            x *= 2.0 ** (900 if wide else 100)
        elif kind == "rows" and len(shape) >= 1 and shape[0] > 0:
            x *= 2.0 ** self.rng.integers(-60, 61, size=(shape[0],) + (1,) * (len(shape) - 1))
        elif kind == "elements":
            x *= 2.0 ** self.rng.integers(-30, 31, size=shape)
        elif kind == "zeros":
            x *= self.rng.random(size=shape) < 0.02
        elif kind == "specials" and x.size:
            for _ in range(int(self.rng.integers(1, 4))):
                x.flat[int(self.rng.integers(x.size))] = self.pick([math.nan, math.inf, -math.inf])
        return torch.from_numpy(np.ascontiguousarray(x).astype(NP[dtype])).cuda()

    def integers(self, shape, dtype=torch.int32):
        info = torch.iinfo(dtype)
        low, high = (info.min, info.max) if self.rng.random() < 0.5 else (-100, 100)
        return torch.from_numpy(self.rng.integers(low, high, size=shape, endpoint=True).astype(NP[dtype])).cuda()

    def with_pitch(self, m):
        """m, or the same values as a slice of a wider matrix (rows a pitch apart)."""
        if m.dim() != 2 or self.rng.random() < 0.6:
            return m
        wide = torch.full((m.shape[0], m.shape[1] + int(self.rng.integers(1, 9))), math.nan, device="cuda", dtype=m.dtype)
        wide[:, :m.shape[1]] = m
        return wide[:, :m.shape[1]]

    def route(self, differentiable=True):
        options = ["direct", "direct", "stream"] + (["cupy"] if cupy is not None else []) + (["autograd"] if differentiable else [])
        return self.pick(options)

    @staticmethod
    def into(route, t):
        """An input as the route passes it."""
        if route == "cupy":
            return cupy.from_dlpack(t.detach())
        if route == "autograd" and t.dtype.is_floating_point:
            return t.detach().requires_grad_()
        return t

    @staticmethod
    def back(route, result):
        if route == "cupy" and result is not None and not isinstance(result, torch.Tensor):
            return torch.from_dlpack(result)
        return result.detach() if isinstance(result, torch.Tensor) else result

    @staticmethod
    def extra(route):
        return {"stream": torch.cuda.current_stream()} if route == "stream" else {}

    # ---- checks ---------------------------------------------------------------------------------

    @staticmethod
    def expect_floats(got, ref, bound, slack, dtype, what, magnitude):
        """got (a tensor) against the float64 ref elementwise: NaN for NaN, the same infinity for an
        infinity, within bound + slack for a finite value; any value where the magnitude of the
        terms (an upper bound of every partial sum's) reaches half the dtype's range, where
        intermediate results may overflow."""
        got = got.double().reshape(ref.shape)
        bound = torch.as_tensor(bound, dtype=torch.float64, device=ref.device).expand_as(ref)
        magnitude = torch.as_tensor(magnitude, dtype=torch.float64, device=ref.device).expand_as(ref)
        nan = torch.isnan(ref)
        inf = torch.isinf(ref)
        finite = ~nan & ~inf
        overflow = finite & ~(magnitude < MAX[dtype] / 2)
        ok = torch.where(nan, torch.isnan(got), torch.ones_like(nan))
        ok &= torch.where(inf, got == ref, torch.ones_like(nan))
        within = (got - ref).abs() <= bound + slack
        ok &= torch.where(finite & ~overflow, within, torch.ones_like(nan))
        ok &= torch.where(finite & ~overflow & torch.isfinite(bound), torch.isfinite(got), torch.ones_like(nan))
        if not bool(ok.all()):
            i = int((~ok).reshape(-1).nonzero()[0])
            raise Failure(f"{what}: element {i}: got {got.reshape(-1)[i].item()!r}, reference {ref.reshape(-1)[i].item()!r}, "
                          f"bound {bound.reshape(-1)[i].item():.3g} + {float(slack) if not torch.is_tensor(slack) else slack.reshape(-1)[i].item():.3g}")

    @staticmethod
    def expect_equal(got, want, what):
        got, want = got.contiguous(), want.contiguous()
        if got.shape != want.shape or got.dtype != want.dtype:
            raise Failure(f"{what}: got {got.dtype} {tuple(got.shape)}, want {want.dtype} {tuple(want.shape)}")
        bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[got.element_size()]
        if not torch.equal(got.view(bits), want.view(bits)):
            i = int((got.view(bits) != want.view(bits)).reshape(-1).nonzero()[0])
            raise Failure(f"{what}: element {i}: got {got.reshape(-1)[i].item()!r}, want {want.reshape(-1)[i].item()!r}")

    # ---- the functions --------------------------------------------------------------------------

    def wrong_dtype(self, shape, supported):
        dtype = self.pick([d for d in (torch.float16, torch.bfloat16, torch.int64, torch.float64, torch.int32, torch.uint8)
                           if d not in supported])
        return torch.zeros(shape, device="cuda", dtype=dtype)

    def fuzz_sum(self):
        shape = self.pick([(self.side(3000),), (self.side(), self.side(40)), (self.side(30), 3, self.side(30))])
        dtype = self.pick([torch.int32, torch.float32, torch.float64])
        if self.rng.random() < 0.03:
            return self.expect_type_error(lambda: gpulab.sum(self.wrong_dtype(shape, (torch.int32, torch.float32, torch.float64))))
        x = self.integers(shape) if dtype == torch.int32 else self.floats(shape, dtype)
        route = self.route(dtype != torch.int32)
        out = torch.full((), -7, device="cuda", dtype=dtype) if route != "cupy" and self.rng.random() < 0.2 else None
        got = gpulab.sum(self.into(route, x), out=out, **self.extra(route))
        if out is not None and got is not out:
            raise Failure("sum: out= did not come back")
        got = self.back(route, got)
        if dtype == torch.int32:
            want = int(x.cpu().numpy().astype(np.int64).sum()) % 2**32
            want = want - 2**32 if want >= 2**31 else want
            if int(got.item()) != want:
                raise Failure(f"sum int32 of {shape}: {got.item()} != {want}")
            return
        xd = x.double()
        u = U32 if dtype == torch.float32 else U64
        n = x.numel()
        bound = gamma(math.ceil(math.log2(max(n, 2))) + 64, u) * xd.abs().sum() + gamma(n, U64) * xd.abs().sum()
        self.expect_floats(got.reshape(1), xd.sum().reshape(1), bound, 0.0, dtype, f"sum {dtype} of {shape}", xd.abs().sum())

    def fuzz_histogram(self):
        n = self.side(5000) if self.rng.random() < 0.95 else int(self.rng.integers(2**16, 2**20))
        bins = int(self.pick([1, 2, 3, 7, 256, 1000, 4096, 65537, 2**20, int(self.rng.integers(1, 2**18))]))
        if self.rng.random() < 0.03:
            return self.expect_type_error(lambda: gpulab.histogram(self.wrong_dtype((n,), (torch.int32,)), bins))
        v = self.integers((n,))
        route = self.route(False)
        out = torch.full((bins,), 7, device="cuda", dtype=torch.uint32) if route != "cupy" and self.rng.random() < 0.2 else None
        got = self.back(route, gpulab.histogram(self.into(route, v), bins, out=out, **self.extra(route)))
        want = np.bincount(np.mod(v.cpu().numpy().astype(np.int64), bins), minlength=bins)
        if not np.array_equal(got.cpu().numpy().astype(np.int64), want):
            raise Failure(f"histogram of {n} values in {bins} bins")

    def fuzz_float_histogram(self):
        """Float values into equal bins (against torch.histc on the GPU, the rule gpulab follows) or
        between sorted edges (against NumPy's searchsorted), of the whole input (sometimes from its
        second element: not 16-byte aligned) or of each row."""
        dtype = self.pick([torch.float32, torch.float64])
        bins = int(self.pick([1, 2, 7, 64, 255, 1000, 4096, 30000, int(self.rng.integers(1, 5000))]))
        per_row = self.rng.random() < 0.3
        if per_row:
            x = self.floats((max(self.side(40), 1), self.side(2000)), dtype)
        else:
            n = self.side(5000) if self.rng.random() < 0.95 else int(self.rng.integers(2**16, 2**20))
            x = self.floats((n + 1,), dtype)
            x = x[1:] if self.rng.random() < 0.3 else x[:n]
        route = self.route(False)
        rows = x if per_row else x.reshape(1, -1)
        np_type = NP[dtype]
        if self.rng.random() < 0.5:
            lo, hi = sorted(float(np_type(e)) for e in self.rng.uniform(-1, 1, 2) * self.pick([1.0, 8.0, 1e-30, 1e30]))
            if not lo < hi:
                return
            got = gpulab.histogram(self.into(route, x), bins, range=(lo, hi), dim=-1 if per_row else None, **self.extra(route))
            want = torch.stack([torch.histc(r, bins=bins, min=lo, max=hi) for r in rows]).to(torch.int64).cpu().numpy()
            what = f"histogram of {tuple(x.shape)} {dtype} values in {bins} bins over [{lo!r}, {hi!r}]"
        else:
            edges = np.sort(np.nan_to_num(self.floats((bins + 1,), dtype).cpu().numpy(), posinf=1.0, neginf=-1.0))
            got = gpulab.histogram(self.into(route, x), bins, edges=self.into(route, torch.from_numpy(edges).cuda()),
                                   dim=-1 if per_row else None, **self.extra(route))
            want = []
            for r in rows.cpu().numpy():
                inside = r[(r >= edges[0]) & (r <= edges[-1])]
                want.append(np.bincount(np.minimum(np.searchsorted(edges, inside, side="right") - 1, bins - 1), minlength=bins))
            want = np.stack(want)
            what = f"histogram of {tuple(x.shape)} {dtype} values between {bins + 1} edges from {edges[0]!r} to {edges[-1]!r}"
        got = self.back(route, got).cpu().numpy().astype(np.int64).reshape(want.shape)
        if not np.array_equal(got, want):
            raise Failure(what)

    def fuzz_atax(self):
        rows, cols = max(self.side(), 1), max(self.side(600), 1)
        if self.rng.random() < 0.1:
            cols = int(self.rng.integers(128, 16385))
            rows = int(self.rng.integers(1, 64))
        a, x = self.floats((rows, cols)), self.floats((cols,), kind=self.pick(["unit", "integers", "elements"]))
        route = self.route()
        got = self.back(route, gpulab.atax(self.into(route, a), self.into(route, x), **self.extra(route)))
        ad, xd = a.double(), x.double()
        t = ad @ xd
        ref = ad.T @ t
        aa = ad.abs()
        s = aa @ xd.abs()
        bound = gamma(cols + 2, U32) * (aa.T @ s) * 2 + gamma(rows + 2, U32) * (aa.T @ t.abs())
        slack = TINY32 * (cols * aa.sum(0) + rows + 4)
        # A·x's magnitudes too: a row of it past the range makes every y it reaches infinite
        magnitude = (aa.T @ s) + (aa.T @ (s >= MAX[torch.float32] / 2).double()) * MAX[torch.float32]
        self.expect_floats(got, ref, bound, slack, torch.float32, f"atax {rows}x{cols}", magnitude)

    def fuzz_scan(self):
        n = self.side(5000) if self.rng.random() < 0.95 else int(self.rng.integers(2**16, 2**21))
        shape = (n,) if self.rng.random() < 0.8 else (1, n)
        dtype = self.pick([torch.int8, torch.int16, torch.int32, torch.float32, torch.float64])
        inclusive = self.rng.random() < 0.5
        fn = gpulab.inclusive_scan if inclusive else gpulab.exclusive_scan
        if self.rng.random() < 0.03:
            return self.expect_type_error(lambda: fn(self.wrong_dtype(shape, (torch.int8, torch.int16, torch.int32, torch.float32,
                                                                                torch.float64))))
        x = self.floats(shape, dtype) if dtype.is_floating_point else self.integers(shape, dtype)
        route = self.route(dtype.is_floating_point)
        result_type = dtype if dtype.is_floating_point else torch.int32
        out = None
        if route != "cupy" and route != "autograd" and self.rng.random() < 0.2:
            out = x if result_type == dtype and self.rng.random() < 0.5 else torch.empty(shape, device="cuda", dtype=result_type)
        original = x.clone()
        got = self.back(route, fn(self.into(route, x), out=out, **self.extra(route))).reshape(-1)
        xs = original.reshape(-1)
        if dtype.is_floating_point:
            xd = xs.double()
            ref = torch.cumsum(xd, 0)
            mag = torch.cumsum(xd.abs(), 0)
            if not inclusive:
                ref = torch.cat([ref.new_zeros(1), ref[:-1]]) if n else ref
                mag = torch.cat([mag.new_zeros(1), mag[:-1]]) if n else mag
            u = U32 if dtype == torch.float32 else U64
            bound = gamma(64 + n // 1024, u) * mag + gamma(n, U64) * mag
            self.expect_floats(got, ref, bound, 0.0, dtype, f"{'in' if inclusive else 'ex'}clusive scan {dtype} of {n}", mag)
        else:
            want = np.cumsum(xs.cpu().numpy().astype(np.int64)) % 2**32
            want = np.where(want >= 2**31, want - 2**32, want)
            if not inclusive:
                want = np.concatenate([[0], want[:-1]]) if n else want
            if not np.array_equal(got.cpu().numpy().astype(np.int64), want):
                raise Failure(f"{'in' if inclusive else 'ex'}clusive scan {dtype} of {n}")

    def fuzz_transpose(self):
        rows, cols = self.side(), self.side()
        if self.rng.random() < 0.03:
            return self.expect_type_error(lambda: gpulab.transpose(self.wrong_dtype((rows, cols), (torch.float32,))))
        a = self.with_pitch(self.floats((rows, cols)))
        route = self.route()
        if route != "cupy" and route != "autograd" and rows == cols and self.rng.random() < 0.2:
            want = a.T.clone()
            got = gpulab.transpose(a, out=a)
        else:
            want = a.T.contiguous()
            got = self.back(route, gpulab.transpose(self.into(route, a), **self.extra(route)))
        self.expect_equal(got, want, f"transpose {rows}x{cols}")

    def fuzz_add(self):
        rows, cols = self.side(), self.side()
        a, b = self.with_pitch(self.floats((rows, cols))), self.with_pitch(self.floats((rows, cols)))
        alpha, beta = (float(np.float32(self.pick([1.0, -0.5, 0.0, 2.5, self.rng.uniform(-3, 3)]))) for _ in range(2))  # as the library takes them
        route = self.route()
        ad, bd = a.double(), b.double()
        got = self.back(route, gpulab.add(self.into(route, a), self.into(route, b), alpha=alpha, beta=beta, **self.extra(route)))
        ref = alpha * ad + beta * bd
        bound = U32 * (alpha * ad).abs() + 2 * U32 * (beta * bd).abs()
        self.expect_floats(got, ref, bound, TINY32, torch.float32, f"add {rows}x{cols} alpha {alpha} beta {beta}",
                           (alpha * ad).abs() + (beta * bd).abs())

    def fuzz_zero_triangle(self):
        rows, cols = self.side(), self.side()
        m = self.with_pitch(self.floats((rows, cols)))
        part = self.pick(["upper", "lower"])
        want = torch.tril(m) if part == "upper" else torch.triu(m)
        route = self.pick(["direct", "stream"] + (["cupy"] if cupy is not None else []))
        gpulab.zero_triangle(self.into(route, m), part, **self.extra(route))
        self.expect_equal(m, want, f"zero_triangle {rows}x{cols} {part}")

    def fuzz_sgemm(self):
        m, n, k = self.side(), self.side(), self.side()
        kinds = (None, None)
        if self.rng.random() < 0.04:  # shapes the tensor cores take, often at FP32's ends
            m, n, k = int(self.rng.integers(512, 1100)), int(self.rng.integers(512, 1100)), int(self.rng.integers(1024, 4200))
            if self.rng.random() < 0.5:
                kinds = self.pick([("subnormal", "huge"), ("huge", "subnormal"), ("tiny", "tiny"), ("huge", "tiny"), ("subnormal", "unit"),
                                   ("specials", "unit"), ("unit", "specials"), ("elements", "elements"), ("rows", "rows")])
        precision = self.pick(self.sgemm_precisions)

        def operand(shape, kind):
            """As stored, or a transposed view of the other shape (read in place: x @ w.T)."""
            if self.rng.random() < 0.6:
                return self.with_pitch(self.floats(shape, kind=kind))
            return self.with_pitch(self.floats(shape[::-1], kind=kind)).T

        a, b = operand((m, k), kinds[0]), operand((k, n), kinds[1])
        form = ("T" if a.stride(0) == 1 and a.shape[0] > 1 else "N") + ("T" if b.stride(0) == 1 and b.shape[0] > 1 else "N")
        alpha = float(self.pick([1.0, 1.0, -0.5, 0.0, 3.0]))
        beta = float(self.pick([0.0, 0.0, 1.0, -2.0]))
        route = self.route()
        c = None
        if beta != 0.0 or self.rng.random() < 0.3:
            c = self.with_pitch(self.floats((m, n), kind=self.pick(["unit", "integers"])))
            if beta == 0.0 and c.numel():
                c.fill_(math.nan)  # beta = 0: C is not read
        c0 = c.clone() if c is not None else None
        args = (self.into(route, a), self.into(route, b))
        if route == "autograd" and c is not None:
            route = "direct"
        got = gpulab.sgemm(*args, self.into(route, c) if c is not None else None, alpha=alpha, beta=beta, precision=precision,
                           **self.extra(route))
        got = c if c is not None else self.back(route, got)
        ad, bd = a.double(), b.double()
        product = ad @ bd if k else torch.zeros((m, n), dtype=torch.float64, device="cuda")
        magnitude = ad.abs() @ bd.abs() if k else torch.zeros_like(product)
        ref = alpha * product if alpha != 0.0 else torch.zeros_like(product)
        mag = abs(alpha) * magnitude if alpha != 0.0 else torch.zeros_like(product)
        if beta != 0.0:
            ref = ref + beta * c0.double()
            mag = mag + abs(beta) * c0.double().abs()
        unit = {"fp32": gamma(k + 2, U32), "fp32_tensor": gamma(6 * k + 4, U32) + 2.0**-20,
                "tf32": gamma(2 * k + 4, U32) + 2.0**-10 + 2.0**-20}[precision]
        slack = TINY32 * (2 * k + 8) * max(1.0, abs(alpha))
        # A·B's own magnitudes too: the sum is formed before alpha scales it
        self.expect_floats(got, ref, unit * mag, slack, torch.float32, f"sgemm {precision} {m}x{n}x{k} {form} alpha {alpha} beta {beta}",
                           torch.maximum(mag, magnitude if alpha != 0.0 else torch.zeros_like(mag)))

    def fuzz_conv(self):
        h, w = max(self.side(200), 1), max(self.side(200), 1)
        img = torch.from_numpy(self.rng.integers(0, 256, size=(h, w, 3)).astype(np.uint8)).cuda()
        if self.rng.random() < 0.3:
            wide = torch.zeros((h, w + int(self.rng.integers(1, 5)), 3), device="cuda", dtype=torch.uint8)
            wide[:, :w] = img
            img = wide[:, :w]
        border = self.pick(["replicate", "zero", "mirror"])
        if self.rng.random() < 0.5:
            name = self.pick(["box", "gaussian", "sharpen", "edge", "emboss"])
            weights, divisor = gpulab._core.named_filter(name)
            spec, kwargs = name, {}
        else:
            weights = [int(v) for v in self.rng.integers(-16, 17, size=9)]
            divisor = int(self.pick([1, -1, 3, 9, 16, -7, int(self.rng.integers(1, 300))]))
            spec, kwargs = weights, {"divisor": divisor}
        route = self.route(False)
        got = self.back(route, gpulab.conv3x3(self.into(route, img), spec, border=border, **kwargs, **self.extra(route)))
        want = conv_reference(img.cpu().numpy(), weights, divisor, border)
        if not np.array_equal(got.cpu().numpy(), want):
            raise Failure(f"conv3x3 {h}x{w} {border} {weights}/{divisor}")

    def expect_type_error(self, call):
        try:
            call()
        except TypeError:
            return
        except Exception as error:  # noqa: BLE001
            raise Failure(f"an unsupported dtype raised {type(error).__name__}: {error}") from None
        raise Failure("an unsupported dtype raised nothing")

    FUNCTIONS = ["sum", "histogram", "float_histogram", "atax", "scan", "transpose", "add", "zero_triangle", "sgemm", "conv"]

    def run(self, calls, deadline):
        started = time.time()
        for i in range(calls):
            if time.time() > deadline:
                break
            name = self.FUNCTIONS[i % len(self.FUNCTIONS)]
            self.calls[name] += 1
            try:
                getattr(self, f"fuzz_{name}")()
            except Exception as error:  # noqa: BLE001 - every failure is counted and shown
                self.failures[name] += 1
                if self.failures[name] <= 8:  # the first few of each function
                    text = str(error) if isinstance(error, Failure) else traceback.format_exc(limit=3)
                    self.examples.append(f"call {i} ({name}): {text}")
        torch.cuda.synchronize()
        return time.time() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=1e9, help="stop early after this long (the calls made are reported)")
    parser.add_argument("--json")
    args = parser.parse_args()
    if gpulab.device_count() == 0 or not torch.cuda.is_available():
        print("no CUDA device: the fuzz run needs a GPU", file=sys.stderr)
        return 3
    fuzz = Fuzz(args.seed)
    seconds = fuzz.run(args.calls, time.time() + args.seconds)
    made, failed = sum(fuzz.calls.values()), sum(fuzz.failures.values())
    summary = {"calls": made, "failures": failed, "seed": args.seed, "seconds": round(seconds, 1),
               "device": torch.cuda.get_device_name(), "per_function": {k: [fuzz.calls[k], fuzz.failures[k]] for k in fuzz.calls},
               "cupy": cupy is not None, "examples": fuzz.examples}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    for example in fuzz.examples[:20]:
        print(example)
    for name in fuzz.calls:
        print(f"{name:>14}: {fuzz.calls[name]:7d} calls, {fuzz.failures[name]} failed")
    print(f"fuzz: {made} calls, {failed} failures, seed {args.seed}, {seconds:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
