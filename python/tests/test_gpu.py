"""gpulab's Python functions on a GPU, against NumPy (float64) and PyTorch references on awkward
sizes; zero copies in; the caller's stream; CuPy and JAX arrays. Skipped, visibly, without a GPU
or without PyTorch."""
import math
from fractions import Fraction

import numpy as np
import pytest

import gpulab
from references import conv_reference, gamma

torch = pytest.importorskip("torch")
if gpulab.device_count() == 0 or not torch.cuda.is_available():
    pytest.skip("no CUDA device: the GPU tests are skipped", allow_module_level=True)

SIZES = [0, 1, 31, 1000, 2**20 + 3, 2**24 + 1]
U = {torch.float32: 2.0**-24, torch.float64: 2.0**-53}


def rng(seed=1):
    return torch.Generator(device="cuda").manual_seed(seed)


def uniform(n, dtype, seed=1):
    return (torch.rand(n, generator=rng(seed), device="cuda", dtype=torch.float64) * 2 - 1).to(dtype)


# ---- sum ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_sum_floats(n, dtype):
    x = uniform(n, dtype, n)
    s = gpulab.sum(x)
    assert isinstance(s, torch.Tensor) and s.shape == () and s.dtype == dtype and s.device == x.device
    ref = x.double().sum().item()
    bound = gamma(math.ceil(math.log2(max(n, 2))) + 64, U[dtype]) * x.double().abs().sum().item()
    assert abs(s.item() - ref) <= bound


@pytest.mark.parametrize("n", SIZES)
def test_sum_int32_wraps_like_a_serial_loop(n):
    x = torch.randint(-2**31, 2**31 - 1, (n,), generator=rng(n), device="cuda", dtype=torch.int32)
    want = int(x.cpu().numpy().astype(np.int64).sum()) % 2**32
    want = want - 2**32 if want >= 2**31 else want
    assert gpulab.sum(x).item() == want


def test_sum_is_deterministic():
    x = uniform(2**24 + 1, torch.float32)
    first = gpulab.sum(x)
    assert all(torch.equal(first, gpulab.sum(x)) for _ in range(5))


def test_results_into_the_callers_arrays():
    x = torch.arange(1000, device="cuda", dtype=torch.float64)
    out = torch.empty(1, device="cuda", dtype=torch.float64)
    assert gpulab.sum(x, out=out) is out and out.item() == 999 * 1000 / 2
    v = torch.arange(-50, 50, device="cuda", dtype=torch.int32)
    counts = torch.empty(10, device="cuda", dtype=torch.uint32)
    assert gpulab.histogram(v, 10, out=counts) is counts and counts.tolist() == [10] * 10
    s = torch.arange(10, device="cuda", dtype=torch.int32)
    assert gpulab.inclusive_scan(s, out=s) is s and s.tolist() == [0, 1, 3, 6, 10, 15, 21, 28, 36, 45]
    with pytest.raises(ValueError, match=r"out must have shape \(10,\), got \(9,\)"):
        gpulab.histogram(v, 10, out=counts[:9])
    with pytest.raises(TypeError, match=r"dtype int64 is not supported; use uint32"):
        gpulab.histogram(v, 10, out=torch.empty(10, device="cuda", dtype=torch.int64))


def test_sum_reads_the_callers_memory():
    """No copy in: a view into the middle of a buffer is summed where it lies, and the only memory
    the call takes from PyTorch is the 0-d result."""
    base = torch.ones(2**24, device="cuda")
    base[:1000] = 5
    view = base[1000:]
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    s = gpulab.sum(view)
    assert torch.cuda.memory_allocated() - before <= 512  # one 0-d tensor (PyTorch rounds to 512)
    assert s.item() == 2**24 - 1000


def test_runs_on_the_callers_stream():
    """A kernel on a side stream writes x; gpulab.sum right after it on that stream must see the
    written values. (Run on the default stream instead, it would race with the write, which is
    held back by a sleep.)"""
    x = torch.ones(2**24, device="cuda")
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # about 25 ms of the side stream
        x.fill_(2.0)
        s = gpulab.sum(x)
    side.synchronize()
    assert s.item() == 2 * 2**24


def test_an_explicit_stream_is_used():
    x = torch.ones(2**20, device="cuda")
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)
        x.fill_(3.0)
    s = gpulab.sum(x, stream=side)  # the current stream is the default one; the work is on `side`
    side.synchronize()
    assert s.item() == 3 * 2**20


@pytest.mark.parametrize("warmed", [True, False])
def test_calls_captured_in_a_cuda_graph(warmed):
    """Captured with or without a call on the capture stream first; replayed after the input
    changed, beside direct calls on the default stream (the graph has scratch of its own)."""
    x = torch.ones(2**20 + 7, device="cuda")
    side = torch.cuda.Stream()
    if warmed:
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            gpulab.sum(x)
        torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side if warmed else None):
        s = gpulab.sum(x)
        c = gpulab.inclusive_scan(x)
    x.fill_(3.0)
    graph.replay()
    direct = gpulab.sum(x * 2)
    torch.cuda.synchronize()
    assert s.item() == 3 * x.numel() and c[-1].item() == 3 * x.numel() and direct.item() == 6 * x.numel()


# ---- histogram ----------------------------------------------------------------------------------

@pytest.mark.parametrize("bins", [1, 7, 256, 4096, 65537, 2**20])
@pytest.mark.parametrize("n", [0, 1, 1000, 2**22 + 5])
def test_histogram_matches_bincount(n, bins):
    v = torch.randint(-2**31, 2**31 - 1, (n,), generator=rng(bins), device="cuda", dtype=torch.int32)
    counts = gpulab.histogram(v, bins)
    assert counts.dtype == torch.uint32 and counts.shape == (bins,)
    want = torch.bincount(torch.remainder(v.long(), bins), minlength=bins)
    assert torch.equal(counts.to(torch.int64), want)


@pytest.mark.parametrize("n", [0, 1, 1000, 2**20 + 3])
@pytest.mark.parametrize("bins", [1, 256, 4097])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_weighted_histogram_matches_bincount(n, bins, dtype):
    v = torch.randint(-2**31, 2**31 - 1, (n,), generator=rng(bins), device="cuda", dtype=torch.int32)
    w = uniform(n, dtype, n + bins)
    sums = gpulab.histogram(v, bins, weights=w)
    assert sums.dtype == dtype and sums.shape == (bins,)
    bin_of = torch.remainder(v.long(), bins)
    want = torch.bincount(bin_of, weights=w.double(), minlength=bins)
    magnitude = torch.bincount(bin_of, weights=w.double().abs(), minlength=bins)
    # one rounding to the weights' type, and two float64 sums (gpulab's and bincount's) of at most n + 1000 additions
    assert torch.all((sums.double() - want).abs() <= U[dtype] * want.abs() + 2 * gamma(n + 1000, U[torch.float64]) * magnitude)
    assert torch.equal(gpulab.histogram(v, bins, weights=w), sums)  # the same bits again


def nearest_float32(exact):
    """The float32 nearest the rational `exact`, ties to even: float64's nearest cast to float32 (which
    can land one off, on a float32 midpoint), then it and its neighbours compared exactly."""
    f = np.float32(float(exact))
    near = [c for c in (np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))) if np.isfinite(c)]
    return min(near, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.array(c).view(np.uint32)) & 1))


@pytest.mark.parametrize("bins", [1, 256, 4096])
def test_weighted_histogram_of_float32_is_the_exact_sum_rounded(bins):
    # float32 weights are summed exactly and rounded once to float32: each bin against its exact
    # rational sum rounded to the nearest float32. Weights over 2^±40, so that float32 or float64
    # additions in any order would lose bits; 4096 bins take two passes (H100).
    n = 2**16 + 3
    v = torch.randint(-2**31, 2**31 - 1, (n,), generator=rng(bins + 1), device="cuda", dtype=torch.int32)
    scale = torch.pow(2.0, torch.randint(-40, 41, (n,), generator=rng(bins + 2), device="cuda").double())
    w = (uniform(n, torch.float64, bins + 3) * scale).float()
    sums = gpulab.histogram(v, bins, weights=w).cpu().numpy()
    exact = [Fraction(0)] * bins
    for b, x in zip(torch.remainder(v.long(), bins).cpu().tolist(), w.cpu().double().tolist()):
        exact[b] += Fraction(x)
    want = np.array([nearest_float32(s) for s in exact], dtype=np.float32)
    assert np.array_equal(sums.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("bins", [1, 256])
def test_weighted_histogram_of_float64_is_the_exact_sum_rounded(bins):
    # Up to about 330 bins (one pass of its digits) float64 weights are summed exactly too: each bin
    # against its exact rational sum rounded to the nearest double (int / int in Python is).
    n = 2**16 + 3
    v = torch.randint(-2**31, 2**31 - 1, (n,), generator=rng(bins + 4), device="cuda", dtype=torch.int32)
    scale = torch.pow(2.0, torch.randint(-300, 301, (n,), generator=rng(bins + 5), device="cuda").double())
    w = uniform(n, torch.float64, bins + 6) * scale
    sums = gpulab.histogram(v, bins, weights=w).cpu().numpy()
    exact = [Fraction(0)] * bins
    for b, x in zip(torch.remainder(v.long(), bins).cpu().tolist(), w.cpu().tolist()):
        exact[b] += Fraction(x)
    want = np.array([s.numerator / s.denominator for s in exact], dtype=np.float64)
    assert np.array_equal(sums.view(np.uint64), want.view(np.uint64))


@pytest.mark.parametrize("bins", [1, 7, 256, 70001])
def test_histogram_uint64_counts_are_the_uint32_ones(bins):
    v = torch.randint(-2**31, 2**31 - 1, (100_003,), generator=rng(bins), device="cuda", dtype=torch.int32)
    wide = gpulab.histogram(v, bins, dtype="uint64")
    assert wide.dtype == torch.uint64 and wide.shape == (bins,)
    assert torch.equal(wide.to(torch.int64), gpulab.histogram(v, bins).to(torch.int64))
    out = torch.empty(bins, dtype=torch.uint64, device="cuda")
    assert gpulab.histogram(v, bins, out=out) is out and torch.equal(out.to(torch.int64), wide.to(torch.int64))


def awkward_floats(n, dtype, seed):
    """n values over [-1.5, 1.5) with the ends of [-1, 1], NaN, the infinities and -0 among them."""
    x = uniform(n, dtype, seed) * 1.5
    specials = torch.tensor([-1.0, 1.0, 0.5, -0.0, float("nan"), float("inf"), float("-inf"), 2.0], dtype=dtype, device="cuda")
    x[: min(n, 8)] = specials[: min(n, 8)]
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n,bins", [(1, 1), (1000, 7), (2**20 + 3, 256), (2**24 + 5, 70001)])
def test_histogram_range_is_torch_histc(n, bins, dtype):
    x = awkward_floats(n, dtype, bins)
    counts = gpulab.histogram(x, bins, range=(-1, 1))
    assert counts.dtype == torch.uint32 and counts.shape == (bins,)
    want = torch.histc(x[~x.isnan()], bins=bins, min=-1, max=1)  # (histc counts NaN where it compares)
    assert torch.equal(counts.to(torch.int64), want.to(torch.int64))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n,bins", [(1, 1), (1000, 7), (2**20 + 3, 256), (2**24 + 5, 70001)])
def test_histogram_edges_is_bucketize_and_bincount(n, bins, dtype):
    x = awkward_floats(n, dtype, bins)
    grid = torch.linspace(-1, 1, bins + 1, dtype=dtype, device="cuda")
    edges = grid.sign() * grid * grid  # uneven, sorted
    counts = gpulab.histogram(x, bins, edges=edges)
    inside = (x >= edges[0]) & (x <= edges[-1])
    b = (torch.bucketize(x[inside], edges, right=True) - 1).clamp(max=bins - 1)  # the last bin closed
    assert torch.equal(counts.to(torch.int64), torch.bincount(b, minlength=bins))


@pytest.mark.parametrize("rows,cols,bins", [(1, 1000, 7), (5, 1, 3), (64, 4097, 100), (1000, 33, 256)])
def test_histogram_per_row_is_a_loop_of_histc(rows, cols, bins):
    x = awkward_floats(rows * cols, torch.float32, rows).reshape(rows, cols)
    counts = gpulab.histogram(x, bins, range=(-1, 1), dim=-1)
    assert counts.dtype == torch.uint32 and counts.shape == (rows, bins)
    want = torch.stack([torch.histc(row[~row.isnan()], bins=bins, min=-1, max=1) for row in x])
    assert torch.equal(counts.to(torch.int64), want.to(torch.int64))
    edges = torch.linspace(-1, 1, bins + 1, device="cuda")
    per_row = gpulab.histogram(x, bins, edges=edges, dim=1)
    assert torch.equal(per_row.to(torch.int64), torch.stack([gpulab.histogram(row.contiguous(), bins, edges=edges) for row in x]).to(torch.int64))


# ---- atax ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 5), (1000, 127), (513, 128), (257, 4099), (4, 16385), (200, 30000)])
def test_atax(rows, cols):
    a = uniform(rows * cols, torch.float32, rows).reshape(rows, cols)
    x = uniform(cols, torch.float32, cols)
    y = gpulab.atax(a, x)
    ad, xd = a.double(), x.double()
    t = ad @ xd
    ref = ad.T @ t
    bound = gamma(cols + 2, 2.0**-24) * (ad.abs().T @ (ad.abs() @ xd.abs())) * 2 + gamma(rows + 2, 2.0**-24) * (ad.abs().T @ t.abs())
    assert torch.all((y.double() - ref).abs() <= bound)


# ---- scan ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32])
def test_scans_of_integers(n, dtype):
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, (n,), generator=rng(n), device="cuda", dtype=dtype)
    inc, exc = gpulab.inclusive_scan(x), gpulab.exclusive_scan(x)
    assert inc.dtype == torch.int32 and inc.shape == x.shape
    want = torch.cumsum(x.long(), 0).remainder(2**32)
    want = torch.where(want >= 2**31, want - 2**32, want)
    assert torch.equal(inc.long(), want)
    if n:
        assert exc[0].item() == 0 and torch.equal(exc[1:], inc[:-1])


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_scans_of_floats(n, dtype):
    x = uniform(n, dtype, n)
    inc = gpulab.inclusive_scan(x)
    ref = torch.cumsum(x.double(), 0)
    bound = gamma(64 + n // 1024, U[dtype]) * torch.cumsum(x.double().abs(), 0)
    assert torch.all((inc.double() - ref).abs() <= bound)


def segment_starts(n, mean, seed):
    """A bool head flag a segment start, segments of about `mean` elements (element 0 a head)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    heads = torch.rand(n, generator=gen, device="cuda") < 1.0 / mean
    if n:
        heads[0] = True
    return heads


def segmented_reference(x, heads):
    """Inclusive prefix sums restarted at each head, in float64 (or int64), by cumsum and a gather."""
    total = torch.cumsum(x.double() if x.is_floating_point() else x.long(), 0)
    before = torch.cat([total.new_zeros(1), total[:-1]])
    start = torch.cummax(torch.where(heads, torch.arange(len(x), device="cuda"), 0), 0).values
    return total - before[start]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("mean", [1, 3, 1000])
def test_segmented_scans(n, mean):
    heads = segment_starts(n, mean, n + mean)
    x = torch.randint(-1000, 1000, (n,), generator=rng(n), device="cuda", dtype=torch.int32)
    want = segmented_reference(x, heads)
    inc = gpulab.segmented_scan(x, heads)
    assert inc.dtype == torch.int32 and torch.equal(inc.long(), want)
    exc = gpulab.segmented_scan(x, heads.to(torch.uint8), exclusive=True)
    assert torch.equal(exc.long(), torch.where(heads, 0, want - x.long()))
    f = uniform(n, torch.float32, n)
    ref = segmented_reference(f, heads)
    # the library's bound over each segment, plus the reference's own cancellation (a difference of
    # two float64 prefix sums over the whole array)
    bound = gamma(64 + n // 1024, U[torch.float32]) * segmented_reference(f.abs(), heads) + 2.0**-50 * torch.cumsum(f.double().abs(), 0)
    assert torch.all((gpulab.segmented_scan(f, heads).double() - ref).abs() <= bound)
    # by keys whose runs are the same segments (alternating values, past 32 bits for int64): the flags' bits
    for dtype, step in ((torch.int32, 1), (torch.int64, 2**33 + 1)):
        keys = (torch.cumsum(heads.long(), 0) % 2 * step).to(dtype)
        assert torch.equal(gpulab.segmented_scan(f, keys=keys), gpulab.segmented_scan(f, heads))
        assert torch.equal(gpulab.segmented_scan(x, keys=keys, exclusive=True), exc)
    # by offsets: the heads' positions shuffled, repeated, with CSR's closing n and one past it
    starts = torch.nonzero(heads).flatten()
    for dtype in (torch.int32, torch.int64):
        offsets = torch.cat([starts[torch.randperm(len(starts), device="cuda")], starts[:3], starts.new_tensor([n, n + 5])])
        assert torch.equal(gpulab.segmented_scan(f, offsets=offsets.to(dtype)), gpulab.segmented_scan(f, heads))


def test_segmented_scan_refuses_flags_over_its_output():
    x = torch.ones(1000, device="cuda", dtype=torch.int32)
    heads = torch.zeros(4000, device="cuda", dtype=torch.uint8)
    with pytest.raises(gpulab.Error, match=r"head flags overlap the output"):
        gpulab.segmented_scan(x, heads[:1000], out=heads.view(torch.int32))


# ---- matrices -----------------------------------------------------------------------------------

SHAPES = [(1, 1), (1, 1000), (1000, 1), (33, 65), (1025, 4099)]


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_transpose_exact_also_of_a_slice(rows, cols):
    wide = uniform(rows * (cols + 7), torch.float32).reshape(rows, cols + 7)
    a = wide[:, 3:3 + cols]  # rows a pitch apart, not packed
    assert torch.equal(gpulab.transpose(a), a.T)


def test_transpose_in_place_of_a_square():
    a = uniform(513 * 513, torch.float32).reshape(513, 513)
    want = a.T.clone()
    assert gpulab.transpose(a, out=a) is a and torch.equal(a, want)


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_add(rows, cols):
    a = uniform(rows * cols, torch.float32, 1).reshape(rows, cols)
    b = uniform(rows * cols, torch.float32, 2).reshape(rows, cols)
    assert torch.equal(gpulab.add(a, b), a + b)
    c = gpulab.add(a, b, alpha=2.0, beta=-0.5)
    ref = 2.0 * a.double() - 0.5 * b.double()
    assert torch.all((c.double() - ref).abs() <= 2.0**-24 * ref.abs() + 1e-45)
    want = a + b
    assert gpulab.add(a, b, out=a) is a and torch.equal(a, want)  # into one of its inputs


@pytest.mark.parametrize("rows,cols", SHAPES)
@pytest.mark.parametrize("part", ["upper", "lower"])
def test_zero_triangle(rows, cols, part):
    m = uniform(rows * cols, torch.float32).reshape(rows, cols)
    want = torch.tril(m) if part == "upper" else torch.triu(m)
    ptr = m.data_ptr()
    assert gpulab.zero_triangle(m, part) is m and m.data_ptr() == ptr
    assert torch.equal(m, want)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (1, 4096, 4096), (33, 65, 17), (1000, 999, 0), (513, 257, 1031), (64, 64, 2**16)])
def test_sgemm(m, n, k):
    a = uniform(m * k, torch.float32, 1).reshape(m, k)
    b = uniform(k * n, torch.float32, 2).reshape(k, n)
    c = gpulab.sgemm(a, b)
    ref = a.double() @ b.double()
    bound = gamma(k + 2, 2.0**-24) * (a.double().abs() @ b.double().abs())
    assert torch.all((c.double() - ref).abs() <= bound)
    c0 = uniform(m * n, torch.float32, 3).reshape(m, n)
    c1 = c0.clone()
    assert gpulab.sgemm(a, b, c1, alpha=0.5, beta=2.0) is c1
    ref = 0.5 * ref + 2.0 * c0.double()
    bound = gamma(k + 2, 2.0**-24) * (0.5 * (a.double().abs() @ b.double().abs()) + 2.0 * c0.double().abs())
    assert torch.all((c1.double() - ref).abs() <= bound)


@pytest.mark.parametrize("m,n,k", [(512, 512, 4096), (33, 65, 17)])
def test_sgemm_precisions(m, n, k):
    """Each precision within its bound (include/gpulab/sgemm.hpp), or refused where the GPU lacks
    it. 512² × 4096 is the smallest cube gpulab's tensor-core kernels take; at 33 × 65 × 17
    fp32_tensor falls back to fp32's bits (tf32 may be cuBLAS's TF32 there: Hopper's policy)."""
    a = uniform(m * k, torch.float32, 1).reshape(m, k)
    b = uniform(k * n, torch.float32, 2).reshape(k, n)
    ref = a.double() @ b.double()
    magnitude = a.double().abs() @ b.double().abs()
    fp32 = gpulab.sgemm(a, b)
    errors = {}
    for precision, bound in (("fp32_tensor", gamma(6 * k + 4, 2.0**-24) + 2.0**-20),
                             ("tf32", gamma(2 * k + 4, 2.0**-24) + 2.0**-10 + 2.0**-20)):
        if not gpulab.sgemm_precision_supported(precision):  # tf32 without TF32 tensor cores (sm_75)
            with pytest.raises(gpulab.Error, match="needs TF32 tensor cores"):
                gpulab.sgemm(a, b, precision=precision)
            continue
        c = gpulab.sgemm(a, b, precision=precision)
        assert torch.all((c.double() - ref).abs() <= bound * magnitude), precision
        assert torch.equal(gpulab.sgemm(a, b, precision=precision), c)  # the same bits again
        errors[precision] = (c.double() - ref).abs().max().item()
        if m < 512 and precision == "fp32_tensor":
            assert torch.equal(c, fp32)  # too small for the tensor cores: the fp32 call
    if m >= 512 and "tf32" in errors:
        assert errors["tf32"] > 100 * errors["fp32_tensor"]  # TF32's 11 bits show: the tensor cores ran


@pytest.mark.parametrize("precision", ["fp32", "fp32_tensor", "tf32"])
@pytest.mark.parametrize("m,n,k", [(1, 300, 257), (33, 65, 17), (512, 520, 4100)])
def test_sgemm_reads_transposed_views_in_place(m, n, k, precision):
    """x @ w.T and the other forms: transposed views go in as they are (no .contiguous()), within
    the precision's bound; strided rows of a wider matrix, transposed, too."""
    if not gpulab.sgemm_precision_supported(precision):
        pytest.skip(f"{precision} is refused on this GPU")
    bound = {"fp32": gamma(k + 2, 2.0**-24), "fp32_tensor": gamma(6 * k + 4, 2.0**-24) + 2.0**-20,
             "tf32": gamma(2 * k + 4, 2.0**-24) + 2.0**-10 + 2.0**-20}[precision]
    a_stored = uniform(m * k, torch.float32, 1).reshape(m, k)
    b_stored = uniform(k * n, torch.float32, 2).reshape(k, n)
    a_t = uniform(k * (m + 3), torch.float32, 1).reshape(k, m + 3)[:, :m]  # stored k × m, rows padded
    b_t = uniform(n * k, torch.float32, 2).reshape(n, k)
    for a, b in ((a_t.T, b_stored), (a_stored, b_t.T), (a_t.T, b_t.T)):
        assert not a.is_contiguous() or not b.is_contiguous()
        c = gpulab.sgemm(a, b, precision=precision)
        ref = a.double() @ b.double()
        assert torch.all((c.double() - ref).abs() <= bound * (a.double().abs() @ b.double().abs()))
    if m > 1:  # (one row with a column stride is a column stored transposed: fine)
        with pytest.raises(ValueError, match=r"contiguous rows .* or contiguous columns"):
            gpulab.sgemm(a_stored[:, ::2], b_stored[: (k + 1) // 2])


@pytest.mark.parametrize("precision", ["fp32", "fp32_tensor"])
def test_sgemm_batches_as_torch_bmm(precision):
    """3-D a and b: a strided batch in one call, each member within the bound; members transposed
    (a.transpose(1, 2)) and an out= batch with strided rows too; an empty batch does nothing."""
    batch, m, n, k = 5, 70, 90, 33
    a = uniform(batch * m * k, torch.float32, 1).reshape(batch, m, k)
    b = uniform(batch * k * n, torch.float32, 2).reshape(batch, k, n)
    bt = uniform(batch * n * k, torch.float32, 3).reshape(batch, n, k).transpose(1, 2)  # members stored n × k
    bound = {"fp32": gamma(k + 2, 2.0**-24), "fp32_tensor": gamma(6 * k + 4, 2.0**-24) + 2.0**-20}[precision]
    for x, y in ((a, b), (a, bt)):
        c = gpulab.sgemm(x, y, precision=precision)
        assert c.shape == (batch, m, n)
        ref = torch.bmm(x.double(), y.double())
        assert torch.all((c.double() - ref).abs() <= bound * torch.bmm(x.double().abs(), y.double().abs()))
    wide = torch.full((batch, m, n + 3), float("nan"), device="cuda")
    out = wide[:, :, :n]
    out.zero_()
    assert gpulab.sgemm(a, b, out, beta=1.0, precision=precision) is out
    assert torch.isnan(wide[:, :, n:]).all()  # the padding of each row untouched
    assert torch.allclose(out, torch.bmm(a, b), rtol=1e-5, atol=1e-5)
    empty = gpulab.sgemm(a[:0], b[:0])
    assert empty.shape == (0, m, n)
    with pytest.raises(ValueError, match=r"batches of 5 and 4 matrices"):
        gpulab.sgemm(a, b[:4])
    with pytest.raises(ValueError, match=r"matrices \(2-D\) or batches of them \(3-D\)"):
        gpulab.sgemm(a, b[0])


def test_sgemm_linear_layer_gradients_use_transposed_views():
    """y = x·wᵀ as a linear layer writes it: forward and both gradients against PyTorch's."""
    x, w = uniform(64 * 96, torch.float32, 1).reshape(64, 96), uniform(40 * 96, torch.float32, 2).reshape(40, 96)
    x.requires_grad_(), w.requires_grad_()
    gpulab.sgemm(x, w.T).square().sum().backward()
    got = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    torch.backends.cuda.matmul.allow_tf32 = False
    (x @ w.T).square().sum().backward()
    torch.testing.assert_close(got[0], x.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(got[1], w.grad, rtol=1e-4, atol=1e-5)
    # A batch: the gradients are batches too, on transposed views of the members.
    xb = uniform(3 * 20 * 30, torch.float32, 3).reshape(3, 20, 30).requires_grad_()
    wb = uniform(3 * 40 * 30, torch.float32, 4).reshape(3, 40, 30).requires_grad_()
    gpulab.sgemm(xb, wb.transpose(1, 2)).square().sum().backward()
    got = xb.grad.clone(), wb.grad.clone()
    xb.grad = wb.grad = None
    torch.bmm(xb, wb.transpose(1, 2)).square().sum().backward()
    torch.testing.assert_close(got[0], xb.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(got[1], wb.grad, rtol=1e-4, atol=1e-5)


# ---- conv ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("h,w", [(1, 1), (1, 1000), (3, 4097), (67, 129), (1080, 1920)])
@pytest.mark.parametrize("border", ["replicate", "zero", "mirror"])
@pytest.mark.parametrize("filt", ["sharpen", "gaussian", ([-3, 7, 1, 0, -9, 2, 5, -1, 4], -3)])
def test_conv3x3(h, w, border, filt):
    img = torch.randint(0, 256, (h, w, 3), generator=rng(h * w), device="cuda", dtype=torch.uint8)
    if isinstance(filt, str):
        out = gpulab.conv3x3(img, filt, border=border)
        weights, divisor = gpulab._core.named_filter(filt)
    else:
        weights, divisor = filt
        out = gpulab.conv3x3(img, weights, divisor=divisor, border=border)
    assert out.dtype == torch.uint8 and out.shape == img.shape
    np.testing.assert_array_equal(out.cpu().numpy(), conv_reference(img.cpu().numpy(), weights, divisor, border))


# ---- other frameworks ---------------------------------------------------------------------------

def test_cupy_arrays_in_and_out():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(1, 100001, dtype=cupy.float64)
    s = gpulab.sum(x)
    assert isinstance(s, cupy.ndarray) and float(s) == 100000 * 100001 / 2
    v = cupy.asarray(np.arange(-5000, 5000, dtype=np.int32))
    counts = gpulab.histogram(v, 10)
    assert isinstance(counts, cupy.ndarray) and counts.tolist() == [1000] * 10
    with cupy.cuda.Stream(non_blocking=True) as side:
        y = cupy.full(2**20, 2.0, dtype=cupy.float32)
        s = gpulab.sum(y)
    side.synchronize()
    assert float(s) == 2.0**21
    a, b = cupy.asarray(np.arange(12, dtype=np.float32).reshape(4, 3)), cupy.asarray(np.arange(8, dtype=np.float32).reshape(2, 4))
    c = gpulab.sgemm(a.T, b.T)  # both transposed views, read in place
    assert isinstance(c, cupy.ndarray) and c.tolist() == (cupy.asnumpy(a).T @ cupy.asnumpy(b).T).tolist()


def test_jax_arrays_in_and_out():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    try:
        x = jax.device_put(jnp.arange(1000, dtype=jnp.float32), jax.devices("gpu")[0])
    except RuntimeError as e:
        pytest.skip(f"JAX sees no GPU: {e}")
    s = gpulab.sum(x)
    assert isinstance(s, jax.Array) and float(s) == 999 * 1000 / 2
    c = gpulab.sgemm(x.reshape(10, 100), x.reshape(100, 10))
    assert isinstance(c, jax.Array)
    np.testing.assert_allclose(np.asarray(c), np.asarray(x.reshape(10, 100)) @ np.asarray(x.reshape(100, 10)), rtol=1e-5)
    with pytest.raises(TypeError, match=r"JAX arrays are immutable"):
        gpulab.zero_triangle(x.reshape(10, 100))


# ---- errors on the GPU --------------------------------------------------------------------------

def test_library_errors_become_gpulab_errors():
    a = torch.zeros(8, 8, device="cuda")
    with pytest.raises(gpulab.Error, match=r"overlap"):
        gpulab.transpose(a[:, :4], out=a[:4, :])
    with pytest.raises(gpulab.Error):
        gpulab.sgemm(a, a, a)  # C overlaps A and B
