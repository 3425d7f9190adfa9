"""What gpulab's Python package does without a GPU: import, argument checks with messages that say
what to do, the no-device error, and report loading. "CUDA arrays" here are DLPack arrays that
point at nothing (gpulab._core.fake_cuda_array): every check below must fire before any memory is
touched, and on a machine without a GPU the first call that passes them raises NoDeviceError."""
import json
import pathlib

import pytest

import gpulab
from gpulab import _core

REPO = pathlib.Path(__file__).resolve().parents[2]


def fake(shape, dtype="float32", strides=None):
    return _core.fake_cuda_array(list(shape), dtype, 0, strides)


def test_imports_and_names():
    assert gpulab.__version__ == "0.1.0"
    for name in gpulab.__all__:
        assert hasattr(gpulab, name), name
    assert issubclass(gpulab.NoDeviceError, gpulab.Error)
    assert issubclass(gpulab.OutOfMemoryError, gpulab.Error)
    assert issubclass(gpulab.Error, RuntimeError)
    assert gpulab.device_count() >= 0


def test_host_arrays_are_refused_with_a_way_out():
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match=r"numpy.ndarray, which lives in host memory.*cupy.asarray"):
        gpulab.sum(np.zeros(8, dtype=np.float32))
    with pytest.raises(TypeError, match=r"got list"):
        gpulab.sum([1.0, 2.0])
    with pytest.raises(TypeError, match=r"got int"):
        gpulab.histogram(3, 10)


def test_pytorch_cpu_tensors_are_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"torch.Tensor on cpu: move it with x.cuda\(\)"):
        gpulab.sum(torch.zeros(4))


def test_dtypes_are_checked():
    with pytest.raises(TypeError, match=r"gpulab.sum: dtype float16 is not supported; use int32, float32, float64"):
        gpulab.sum(fake([10], "float16"))
    with pytest.raises(TypeError, match=r"gpulab.histogram: dtype float32 is not supported; use int32"):
        gpulab.histogram(fake([10]), 4)
    with pytest.raises(TypeError, match=r"use int8, int16, int32, float32, float64"):
        gpulab.inclusive_scan(fake([10], "uint8"))
    with pytest.raises(TypeError, match=r"gpulab.sgemm: dtype float64"):
        gpulab.sgemm(fake([4, 4], "float64"), fake([4, 4]))
    with pytest.raises(TypeError, match=r"gpulab.conv3x3: dtype float32 is not supported; use uint8"):
        gpulab.conv3x3(fake([4, 4, 3]))


def test_weighted_histogram_checks_its_weights():
    with pytest.raises(TypeError, match=r"gpulab.histogram: dtype int32 is not supported; use float32, float64"):
        gpulab.histogram(fake([10], "int32"), 4, weights=fake([10], "int32"))
    with pytest.raises(ValueError, match=r"weights must have the values' shape \(10,\), got \(9,\)"):
        gpulab.histogram(fake([10], "int32"), 4, weights=fake([9], "float32"))
    with pytest.raises(ValueError, match=r"bins must be an integer from 1 to 2\^32 - 1, got 0"):
        gpulab.histogram(fake([10], "int32"), 0, weights=fake([10], "float32"))


def test_histogram_counts_dtype_is_checked():
    with pytest.raises(ValueError, match=r"gpulab.histogram: dtype must be 'uint32' or 'uint64', got 'int64'"):
        gpulab.histogram(fake([10], "int32"), 4, dtype="int64")
    with pytest.raises(ValueError, match=r"dtype= is the counts'; with weights= the sums take the weights' dtype"):
        gpulab.histogram(fake([10], "int32"), 4, weights=fake([10], "float32"), dtype="uint64")
    with pytest.raises(TypeError, match=r"gpulab.histogram: dtype float32 is not supported; use uint32"):
        gpulab.histogram(fake([10], "int32"), 4, out=fake([4], "float32"))


def test_float_histograms_check_their_range_and_edges():
    with pytest.raises(TypeError, match=r"gpulab.histogram: dtype int32 is not supported; use float32, float64"):
        gpulab.histogram(fake([10], "int32"), 4, range=(0, 1))
    with pytest.raises(ValueError, match=r"range must be finite with lo < hi, got \(1, 1\)"):
        gpulab.histogram(fake([10]), 4, range=(1, 1))
    with pytest.raises(ValueError, match=r"range must be a pair \(lo, hi\) of numbers"):
        gpulab.histogram(fake([10]), 4, range=3)
    with pytest.raises(ValueError, match=r"edges must have bins \+ 1 = 5 elements, got shape \(4,\)"):
        gpulab.histogram(fake([10]), 4, edges=fake([4]))
    with pytest.raises(TypeError, match=r"dtype float64 is not supported; use float32"):
        gpulab.histogram(fake([10]), 4, edges=fake([5], "float64"))
    with pytest.raises(ValueError, match=r"range= or edges=, not both"):
        gpulab.histogram(fake([10]), 4, range=(0, 1), edges=fake([5]))
    with pytest.raises(ValueError, match=r"no weights=, no dtype="):
        gpulab.histogram(fake([10]), 4, range=(0, 1), weights=fake([10]))
    with pytest.raises(ValueError, match=r"dim= takes a 2-D input \(a histogram per row\), got shape \(10,\)"):
        gpulab.histogram(fake([10]), 4, range=(0, 1), dim=-1)
    with pytest.raises(ValueError, match=r"dim must be -1 or 1"):
        gpulab.histogram(fake([3, 10]), 4, range=(0, 1), dim=0)
    with pytest.raises(ValueError, match=r"dim= \(a histogram per row\) goes with range= or edges="):
        gpulab.histogram(fake([3, 10], "int32"), 4, dim=-1)
    with pytest.raises(ValueError, match=r"0 rows of 4 bins; at least one row"):
        gpulab.histogram(fake([0, 10]), 4, range=(0, 1), dim=-1)


def test_segmented_scan_checks_its_flags():
    with pytest.raises(TypeError, match=r"gpulab.segmented_scan: dtype float32 is not supported; use bool, uint8, int8"):
        gpulab.segmented_scan(fake([10], "int32"), fake([10], "float32"))
    with pytest.raises(TypeError, match=r"use int8, int16, int32, float32, float64"):
        gpulab.segmented_scan(fake([10], "uint8"), fake([10], "uint8"))
    with pytest.raises(ValueError, match=r"heads must have x's shape \(10,\), got \(9,\)"):
        gpulab.segmented_scan(fake([10]), fake([9], "bool"))
    with pytest.raises(ValueError, match=r"needs heads contiguous"):
        gpulab.segmented_scan(fake([4, 6]), fake([4, 6], "uint8", strides=[1, 4]))
    with pytest.raises(ValueError, match=r"give the segments one way: heads, keys= or offsets= \(got heads, keys\)"):
        gpulab.segmented_scan(fake([10]), fake([10], "bool"), keys=fake([10], "int32"))
    with pytest.raises(ValueError, match=r"one way: heads, keys= or offsets= \(got none\)"):
        gpulab.segmented_scan(fake([10]))
    with pytest.raises(ValueError, match=r"offsets must be 1-D, got shape \(2, 2\)"):
        gpulab.segmented_scan(fake([10]), offsets=fake([2, 2], "int64"))
    with pytest.raises(TypeError, match=r"dtype float32 is not supported; use int32, int64"):
        gpulab.segmented_scan(fake([10]), offsets=fake([3], "float32"))
    with pytest.raises(TypeError, match=r"dtype int16 is not supported; use int32, int64"):
        gpulab.segmented_scan(fake([10]), keys=fake([10], "int16"))
    with pytest.raises(ValueError, match=r"keys must have x's shape \(10,\), got \(11,\)"):
        gpulab.segmented_scan(fake([10]), keys=fake([11], "int64"))


def test_strides_are_checked_or_used():
    transposed = fake([4, 6], strides=[1, 4])
    with pytest.raises(ValueError, match=r"needs the input contiguous; got shape \(4, 6\) with strides \(1, 4\)"):
        gpulab.sum(transposed)
    with pytest.raises(ValueError, match=r"a must have contiguous rows"):
        gpulab.transpose(transposed)
    with pytest.raises(ValueError, match=r"image must store each row's pixels contiguously"):
        gpulab.conv3x3(fake([4, 4, 3], "uint8", strides=[12, 1, 4]))


def test_shapes_and_values_are_checked():
    with pytest.raises(ValueError, match=r"x must have shape \(6,\) for A of shape \(4, 6\), got \(4,\)"):
        gpulab.atax(fake([4, 6]), fake([4]))
    with pytest.raises(ValueError, match=r"A must be a 2-D matrix"):
        gpulab.atax(fake([24]), fake([4]))
    with pytest.raises(ValueError, match=r"a is 4 x 6 and b is 5 x 3: the inner sizes differ"):
        gpulab.sgemm(fake([4, 6]), fake([5, 3]))
    with pytest.raises(ValueError, match=r"beta = 0.5 needs c"):
        gpulab.sgemm(fake([4, 6]), fake([6, 3]), beta=0.5)
    with pytest.raises(ValueError, match=r"precision must be 'fp32', 'fp32_tensor' or 'tf32', got 'fp16'"):
        gpulab.sgemm(fake([4, 6]), fake([6, 3]), precision="fp16")
    with pytest.raises(ValueError, match=r"out must have shape \(4, 3\), got \(3, 4\)"):
        gpulab.sgemm(fake([4, 6]), fake([6, 3]), fake([3, 4]))
    with pytest.raises(ValueError, match=r"a and b differ in shape"):
        gpulab.add(fake([4, 6]), fake([6, 4]))
    with pytest.raises(ValueError, match=r"out must have shape \(6, 4\)"):
        gpulab.transpose(fake([4, 6]), out=fake([4, 6]))
    with pytest.raises(ValueError, match=r"part must be 'upper' or 'lower'"):
        gpulab.zero_triangle(fake([4, 4]), "diagonal")
    with pytest.raises(ValueError, match=r"gpulab.sum: out must have shape \(\), got \(2,\)"):
        gpulab.sum(fake([10]), out=fake([2]))
    with pytest.raises(TypeError, match=r"gpulab.atax: dtype float64 is not supported; use float32"):
        gpulab.atax(fake([4, 6]), fake([6]), out=fake([6], "float64"))
    with pytest.raises(ValueError, match=r"gpulab.inclusive_scan needs out contiguous"):
        gpulab.inclusive_scan(fake([4, 4]), out=fake([4, 4], strides=[1, 4]))
    for bins in (0, -1, 2**32, 2.5, True):
        with pytest.raises(ValueError, match=r"bins must be an integer from 1 to 2\^32 - 1"):
            gpulab.histogram(fake([10], "int32"), bins)


def test_conv_filters_and_borders_are_checked():
    image = fake([4, 5, 3], "uint8")
    with pytest.raises(ValueError, match=r"unknown filter 'blur'; the names are box, gaussian, sharpen, edge, emboss"):
        gpulab.conv3x3(image, "blur")
    with pytest.raises(ValueError, match=r"nine integers"):
        gpulab.conv3x3(image, [1, 2, 3])
    with pytest.raises(ValueError, match=r"nine integers"):
        gpulab.conv3x3(image, [0.5] * 9)
    with pytest.raises(ValueError, match=r"border must be replicate, zero or mirror"):
        gpulab.conv3x3(image, border="wrap")
    with pytest.raises(ValueError, match=r"the divisor is 0"):
        gpulab.conv3x3(image, [1] * 9, divisor=0)
    with pytest.raises(ValueError, match=r"shape \(height, width, 3\)"):
        gpulab.conv3x3(fake([4, 5, 4], "uint8"))


def test_named_filters_come_from_the_library():
    assert _core.named_filter("gaussian") == ([1, 2, 1, 2, 4, 2, 1, 2, 1], 16)
    assert _core.named_filter("sharpen") == ([0, -1, 0, -1, 5, -1, 0, -1, 0], 1)
    assert _core.named_filter("nothing") is None


def test_streams_must_be_streams():
    with pytest.raises(TypeError, match=r"stream must be an int"):
        gpulab.sum(fake([10]), stream="default")


def test_arrays_on_two_devices_are_refused():
    from gpulab import _arrays
    va, vx = _arrays.view(fake([4, 6]), "t"), _arrays.view(fake([6]), "t")
    vx.device = 1  # fake arrays are all on device 0
    with pytest.raises(ValueError, match=r"arrays on devices 0 and 1"):
        _arrays.same_device("gpulab.atax", va, vx)


@pytest.mark.skipif(gpulab.device_count() > 0, reason="a GPU is present: the no-device path cannot be reached")
def test_no_device_error_without_a_gpu():
    with pytest.raises(gpulab.NoDeviceError, match=r"no usable CUDA device.*NVIDIA GPU"):
        gpulab.sum(fake([10]))
    with pytest.raises(gpulab.NoDeviceError):
        gpulab.histogram(fake([10], "int32"), 7)
    with pytest.raises(gpulab.NoDeviceError):
        gpulab.sgemm(fake([4, 6]), fake([6, 3]), fake([4, 3]))
    with pytest.raises(gpulab.NoDeviceError, match=r"needs an NVIDIA GPU"):
        gpulab.require_device()


# ---- PyTorch operators ------------------------------------------------------------------------------

def test_without_pytorch_nothing_is_registered_and_nothing_breaks():
    import subprocess
    import sys
    script = ("import sys; sys.modules['torch'] = None\n"  # import torch now fails, as where it is not installed
              "import gpulab\n"
              "assert not gpulab.torch_operators(), 'operators without torch'\n"
              "print(gpulab._torch.unavailable)\n"
              "try:\n"
              "    gpulab.sum(gpulab._core.fake_cuda_array([4], 'float16', 0, None))\n"
              "except TypeError as e:\n"
              "    print(e)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["PyTorch is not installed",
                                        "gpulab.sum: dtype float16 is not supported; use int32, float32, float64"]


def test_operators_compile_on_meta_tensors():
    """Where PyTorch and gpulab's operators are there (not in CI): every function inside a
    torch.compile'd function (fullgraph, symbolic sizes) and torch.export, with shapes and dtypes
    from the fakes alone, no GPU needed."""
    torch = pytest.importorskip("torch")
    if not gpulab.torch_operators():
        pytest.skip(f"gpulab's PyTorch operators are not built: {gpulab._torch.unavailable}")

    def step(x, v, a, b, img, m):
        gpulab.sgemm(a, b, m, alpha=0.5, beta=1.0)
        gpulab.zero_triangle(m, "upper")
        return (gpulab.sum(x), gpulab.histogram(v, 16), gpulab.inclusive_scan(x), gpulab.exclusive_scan(v),
                gpulab.transpose(a), gpulab.add(a, a, alpha=2.0), gpulab.sgemm(a, b), gpulab.atax(a, x[:9]),
                gpulab.conv3x3(img, "gaussian", border="mirror"), m, gpulab.segmented_scan(x, x > 0),
                gpulab.segmented_scan(x, offsets=v[:3]), gpulab.histogram(v, 16, weights=v.double()),
                gpulab.histogram(x, 8, range=(-1, 1)), gpulab.histogram(x, 2, edges=x[:3]),
                gpulab.histogram(a, 4, range=(0, 1), dim=-1))

    meta = dict(device="meta")
    inputs = (torch.empty(100, **meta), torch.empty(50, dtype=torch.int32, **meta), torch.empty(7, 9, **meta),
              torch.empty(9, 5, **meta), torch.empty(10, 12, 3, dtype=torch.uint8, **meta), torch.empty(7, 5, **meta))
    want = [((), torch.float32), ((16,), torch.uint32), ((100,), torch.float32), ((50,), torch.int32),
            ((9, 7), torch.float32), ((7, 9), torch.float32), ((7, 5), torch.float32), ((9,), torch.float32),
            ((10, 12, 3), torch.uint8), ((7, 5), torch.float32), ((100,), torch.float32), ((100,), torch.float32),
            ((16,), torch.float64), ((8,), torch.uint32), ((2,), torch.uint32), ((7, 4), torch.uint32)]
    for dynamic in (False, True):
        got = torch.compile(step, fullgraph=True, dynamic=dynamic, backend="aot_eager")(*inputs)
        assert [(tuple(t.shape), t.dtype) for t in got] == want
    explained = torch._dynamo.explain(step)(*inputs)
    assert explained.graph_break_count == 0


# ---- reports --------------------------------------------------------------------------------------

def recorded_reports():
    """Every recorded run report: the JSON files that say they are gpulab's (not the peers' timings,
    the GPU tests' output, `gpulab compare`'s JSON, or the multi-GPU bench's before it wrote reports)."""
    return sorted(p for p in (REPO / "docs" / "results").glob("*/*.json")
                  if '"gpulab_version"' in p.read_text(encoding="utf-8")[:4096])


def test_loads_every_recorded_report():
    paths = recorded_reports()
    assert paths, "docs/results holds recorded reports"
    for path in paths:
        report = gpulab.load_report(path)
        assert (report.cases or report.sanitizer or report.multi_gpu) and report.commit
        for row in report.scaling_rows():
            assert row["gpus"] >= 1 and row["total_ms"] > 0 and isinstance(row["ok"], bool)
        for case in report.cases:
            assert case.problem and case.variants
            for v in case.variants:
                assert v.name and isinstance(v.ok, bool)


def test_report_fields_and_rows():
    path = REPO / "docs" / "results" / "h100" / "suite.json"  # the current H100 record: every problem
    report = gpulab.load_report(path)
    raw = json.loads(path.read_text())
    assert report.device["name"] == raw["device"]["name"]
    assert report.ceilings["copy_gbs"] == raw["ceilings"]["copy_gbs"]
    assert report.problems() == sorted({c["problem"] for c in raw["cases"]}) and len(report.problems()) >= 8
    rows = report.rows()
    assert len(rows) == sum(len(c["variants"]) for c in raw["cases"])
    first = raw["cases"][0]["variants"][0]
    assert rows[0]["name"] == first["name"] and rows[0]["median_ms"] == first["kernel"]["median_ms"]
    assert all(rows[0][k] == v for k, v in raw["cases"][0]["params"].items())
    assert any(r["vendor"] for r in rows) and any(r["library"] for r in rows)
    assert "of_size_copy" in rows[0]  # None where the run measured no same-size copy


def test_bad_reports_say_what_is_wrong(tmp_path):
    with pytest.raises(FileNotFoundError):
        gpulab.load_report(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    with pytest.raises(ValueError, match=r"is not JSON"):
        gpulab.load_report(broken)
    peers = tmp_path / "peers.json"
    peers.write_text("[]")
    with pytest.raises(ValueError, match=r"not a gpulab report: the top level has no 'cases'"):
        gpulab.load_report(peers)
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"gpulab_version": "0.1.0", "commit": "x", "cases": [{"problem": "reduce"}]}))
    with pytest.raises(ValueError, match=r"case 0 has no 'variants'"):
        gpulab.load_report(partial)
