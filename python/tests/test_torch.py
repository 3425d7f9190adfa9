"""gpulab's functions as PyTorch operators on a GPU: torch.library.opcheck of each, a torch.compile'd
model (fullgraph, no graph breaks, the same results as eager), torch.export, CUDA graphs, gradients
(gradcheck in float64, PyTorch's own autograd for float32, compiled against eager), and which path a call takes. Skipped,
visibly, without a GPU, without PyTorch, or where gpulab was built without its operators."""
import pytest

import gpulab

torch = pytest.importorskip("torch")
if gpulab.device_count() == 0 or not torch.cuda.is_available():
    pytest.skip("no CUDA device: the PyTorch operator tests are skipped", allow_module_level=True)
if not gpulab.torch_operators():
    pytest.skip(f"gpulab's PyTorch operators are not built: {gpulab._torch.unavailable}", allow_module_level=True)

ops = torch.ops.gpulab


def cuda(*shape, dtype=torch.float32, seed=0, low=-1.0, high=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype.is_floating_point:
        return (torch.rand(*shape, generator=g, device="cuda", dtype=torch.float64) * (high - low) + low).to(dtype)
    return torch.randint(int(low), int(high), shape, generator=g, device="cuda", dtype=dtype)


def image(h, w, seed=0):
    return cuda(h, w, 3, dtype=torch.uint8, seed=seed, low=0, high=256)


SHARPEN = [0, -1, 0, -1, 5, -1, 0, -1, 0]

# (operator, arguments, keyword arguments): every operator and its out / in-place form, on awkward sizes
CASES = [
    (ops.sum.default, lambda: (cuda(1001),), {}),
    (ops.sum.default, lambda: (cuda(3, 5, dtype=torch.float64),), {}),
    (ops.sum.out, lambda: (cuda(77, dtype=torch.int32, low=-100, high=100),), lambda: {"out": torch.empty((), device="cuda", dtype=torch.int32)}),
    (ops.histogram.default, lambda: (cuda(5000, dtype=torch.int32, low=-10**6, high=10**6), 37), {}),
    (ops.histogram.out, lambda: (cuda(999, dtype=torch.int32, low=-50, high=50), 10), lambda: {"out": torch.empty(10, device="cuda", dtype=torch.uint32)}),
    (ops.atax.default, lambda: (cuda(130, 129), cuda(129, seed=1)), {}),
    (ops.atax.out, lambda: (cuda(33, 200), cuda(200, seed=1)), lambda: {"out": torch.empty(200, device="cuda")}),
    (ops.inclusive_scan.default, lambda: (cuda(4097),), {}),
    (ops.inclusive_scan.default, lambda: (cuda(300, dtype=torch.int8, low=-100, high=100),), {}),
    (ops.exclusive_scan.default, lambda: (cuda(7, 9, dtype=torch.float64),), {}),
    (ops.exclusive_scan.out, lambda: (cuda(513, dtype=torch.int16, low=-9, high=9),), lambda: {"out": torch.empty(513, device="cuda", dtype=torch.int32)}),
    (ops.inclusive_scan.out, lambda: (cuda(100),), lambda: {"out": torch.empty(100, device="cuda")}),
    (ops.transpose.default, lambda: (cuda(33, 65),), {}),
    (ops.transpose.default, lambda: (cuda(40, 70)[:, 3:50],), {}),
    (ops.transpose.out, lambda: (cuda(17, 5),), lambda: {"out": torch.empty(5, 17, device="cuda")}),
    (ops.add.default, lambda: (cuda(31, 33), cuda(31, 33, seed=1), 2.0, -0.5), {}),
    (ops.add.out, lambda: (cuda(8, 9), cuda(8, 9, seed=1)), lambda: {"out": torch.empty(8, 9, device="cuda")}),
    (ops.zero_triangle_.default, lambda: (cuda(9, 13), "lower"), {}),
    (ops.sgemm.default, lambda: (cuda(65, 33), cuda(33, 17, seed=1), 0.5), {}),
    (ops.sgemm_.default, lambda: (cuda(20, 30), cuda(30, 40, seed=1), cuda(20, 40, seed=2), 1.5, -1.0), {}),
    (ops.sgemm.default, lambda: (cuda(600, 64), cuda(64, 700, seed=1), 1.0, "fp32_tensor"), {}),
    (ops.sgemm_.default, lambda: (cuda(20, 30), cuda(30, 40, seed=1), cuda(20, 40, seed=2), 1.0, 0.0,
                                  "tf32" if gpulab.sgemm_precision_supported("tf32") else "fp32_tensor"), {}),
    (ops.conv3x3.default, lambda: (image(31, 45), SHARPEN, 1, "mirror"), {}),
    (ops.conv3x3.out, lambda: (image(8, 8), [1] * 9, 9), lambda: {"out": torch.empty(8, 8, 3, device="cuda", dtype=torch.uint8)}),
    (ops.segmented_scan.default, lambda: (cuda(5000), cuda(5000, seed=5) > 0.9, "heads"), {}),
    (ops.segmented_scan.default, lambda: (cuda(777, dtype=torch.int32, low=-9, high=9), torch.arange(777, device="cuda") // 50, "keys",
                                          True), {}),
    (ops.segmented_scan.out, lambda: (cuda(300, dtype=torch.float64), torch.tensor([0, 7, 7, 100, 299, 300, 5000], device="cuda",
                                                                                   dtype=torch.int32), "offsets"),
     lambda: {"out": torch.empty(300, device="cuda", dtype=torch.float64)}),
    (ops.histogram_weighted.default, lambda: (cuda(5000, dtype=torch.int32, low=-10**6, high=10**6), 37, cuda(5000, seed=3)), {}),
    (ops.histogram_weighted.out, lambda: (cuda(999, dtype=torch.int32, low=-50, high=50), 10, cuda(999, dtype=torch.float64, seed=4)),
     lambda: {"out": torch.empty(10, device="cuda", dtype=torch.float64)}),
    (ops.histogram_range.default, lambda: (cuda(5000, low=-1.5, high=1.5), 37, -1.0, 1.0), {}),
    (ops.histogram_range.out, lambda: (cuda(999, dtype=torch.float64), 10, -0.5, 0.25),
     lambda: {"out": torch.empty(10, device="cuda", dtype=torch.uint32)}),
    (ops.histogram_edges.default, lambda: (cuda(5000), 4, torch.tensor([-1.0, -0.5, 0.0, 0.1, 1.0], device="cuda")), {}),
    (ops.histogram_range.default, lambda: (cuda(30, 70), 9, -0.5, 0.5, True), {}),
    (ops.histogram_edges.out, lambda: (cuda(4, 100), 2, torch.tensor([-0.5, 0.0, 0.5], device="cuda"), True),
     lambda: {"out": torch.empty(4, 2, device="cuda", dtype=torch.uint32)}),
    (ops.histogram_edges.out, lambda: (cuda(999, dtype=torch.float64), 2, torch.tensor([-0.5, 0.0, 0.5], device="cuda", dtype=torch.float64)),
     lambda: {"out": torch.empty(2, device="cuda", dtype=torch.uint32)}),
]


@pytest.mark.parametrize("op, args, kwargs", CASES, ids=[str(case[0]) for case in CASES])
def test_opcheck(op, args, kwargs):
    """PyTorch's own check of a custom operator: schema (mutations declared), fake implementation
    against the real one, autograd registration, AOT dispatch (static and dynamic shapes)."""
    torch.library.opcheck(op, args(), kwargs() if callable(kwargs) else kwargs)


def model_step(x, v, a, b, img):
    """A small model using sum, histogram (weighted, of floats), scan (and segmented), sgemm and conv3x3
    (and plain torch around them)."""
    h = gpulab.sgemm(torch.relu(a), b)
    s = gpulab.sum(h)
    counts = gpulab.histogram(v, 64)
    c = gpulab.inclusive_scan(x * 2)
    blurred = gpulab.conv3x3(img, "gaussian", border="mirror")
    runs = gpulab.segmented_scan(x, x > 0.5)
    weighted = gpulab.histogram(v, 64, weights=v.float() * 0.5)
    spread = (gpulab.histogram(x * 3, 16, range=(-1, 1)).to(torch.int64).sum() +
              gpulab.histogram(x, 2, edges=x.new_tensor([-1, 0, 1])).to(torch.int64).sum())
    return h * 0.5, s + 1, counts.to(torch.int64).sum(), c[-1], blurred.float().mean(), runs[-1], weighted.sum(), spread.sum()


def model_inputs():
    return (cuda(10000), cuda(2**16, dtype=torch.int32, low=-2**31, high=2**31 - 1), cuda(130, 70, seed=1),
            cuda(70, 90, seed=2), image(64, 80))


@pytest.mark.parametrize("dynamic", [False, True])
def test_compiled_model_matches_eager_without_graph_breaks(dynamic):
    inputs = model_inputs()
    eager = model_step(*inputs)
    compiled = torch.compile(model_step, fullgraph=True, dynamic=dynamic)(*inputs)
    for e, c in zip(eager, compiled):
        # gpulab's parts are bitwise reproducible; the plain torch ops around them may be fused
        torch.testing.assert_close(c, e, rtol=1e-6, atol=1e-6)
    explained = torch._dynamo.explain(model_step)(*inputs)
    assert explained.graph_break_count == 0 and explained.graph_count == 1


def test_compile_with_mutating_forms():
    def step(a, b, c, x, m):
        gpulab.sgemm(a, b, c, alpha=0.5, beta=1.0)
        gpulab.zero_triangle(m, "upper")
        out = torch.empty((), device=x.device)
        gpulab.sum(x, out=out)
        return c * 2, m + 1, out
    make = lambda: (cuda(20, 30), cuda(30, 40, seed=1), cuda(20, 40, seed=2), cuda(1000, seed=3), cuda(9, 7, seed=4))
    eager_in, compiled_in = make(), make()
    eager = step(*eager_in)
    compiled = torch.compile(step, fullgraph=True)(*compiled_in)
    for e, c in zip(eager + eager_in, compiled + compiled_in):  # results and the mutated inputs
        torch.testing.assert_close(c, e, rtol=0, atol=0)


def test_export():
    class Model(torch.nn.Module):
        def forward(self, x, a, b):
            return gpulab.sum(x), gpulab.sgemm(a, b), gpulab.inclusive_scan(x)
    inputs = (cuda(1000), cuda(30, 20), cuda(20, 10, seed=1))
    exported = torch.export.export(Model(), inputs)
    code = exported.graph_module.code
    assert "gpulab.sum" in code and "gpulab.sgemm" in code and "gpulab.inclusive_scan" in code
    for e, r in zip(Model()(*inputs), exported.module()(*inputs)):
        assert torch.equal(e, r)


@pytest.mark.parametrize("through", ["functions", "operators"])
def test_cuda_graph_replays_the_calls(through):
    x, v, a, b, img = model_inputs()
    if through == "functions":
        step = lambda: (gpulab.sum(x), gpulab.histogram(v, 300), gpulab.inclusive_scan(x), gpulab.sgemm(a, b),
                        gpulab.conv3x3(img, "sharpen"))
    else:
        step = lambda: (ops.sum(x), ops.histogram(v, 300), ops.inclusive_scan(x), ops.sgemm(a, b),
                        ops.conv3x3(img, SHARPEN, 1))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        want = step()  # the warm-up: first calls (sgemm's tuning) outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        got = step()
    for new_x in (cuda(10000, seed=7), x.clone()):
        x.copy_(new_x)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(got[0], gpulab.sum(x)) and torch.equal(got[2], gpulab.inclusive_scan(x))
    for w, g in zip(want[1:], got[1:]):  # the other inputs did not change: nor did their results
        assert torch.equal(w, g)


@pytest.mark.parametrize("fn", ["sum", "inclusive_scan", "exclusive_scan"])
def test_gradcheck_in_float64(fn):
    x = cuda(37, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(getattr(gpulab, fn), (x,))
    y = cuda(4, 6, dtype=torch.float64).requires_grad_()  # any shape: the scan runs in memory order
    assert torch.autograd.gradcheck(getattr(gpulab, fn), (y,))


@pytest.mark.parametrize("exclusive", [False, True])
def test_segmented_scan_gradcheck_every_form(exclusive):
    """The gradient, the segmented scan of the output's gradient run from the end, for heads, keys
    and offsets (those outside the array included), in float64 and of any shape."""
    x = cuda(4, 10, dtype=torch.float64).requires_grad_()
    heads = cuda(4, 10, seed=7) > 0.6
    keys = torch.cumsum(heads.flatten().long(), 0).reshape(4, 10) % 3
    offsets = torch.tensor([13, 0, 27, 27, 40, -3, 5], device="cuda", dtype=torch.int64)
    for segments in ({"heads": heads}, {"keys": keys}, {"offsets": offsets}):
        assert torch.autograd.gradcheck(lambda t: gpulab.segmented_scan(t, exclusive=exclusive, **segments), (x,))


def test_compiled_gradients_match_eager():
    def loss(x, a, b):
        return gpulab.sum(gpulab.inclusive_scan(x) * x) + gpulab.sgemm(a, b).square().sum()
    make = lambda: [t.requires_grad_() for t in (cuda(1000, dtype=torch.float32), cuda(40, 30, seed=1), cuda(30, 20, seed=2))]
    eager_in, compiled_in = make(), make()
    loss(*eager_in).backward()
    torch.compile(loss, fullgraph=True)(*compiled_in).backward()
    for e, c in zip(eager_in, compiled_in):
        torch.testing.assert_close(c.grad, e.grad, rtol=1e-5, atol=1e-5)


def test_float32_gradients_match_pytorchs():
    a, b = cuda(65, 33).requires_grad_(), cuda(33, 17, seed=1).requires_grad_()
    s, t = cuda(65, 33, seed=2).requires_grad_(), cuda(65, 33, seed=3).requires_grad_()
    ours = (gpulab.sgemm(a, b, alpha=0.5).square().sum() + gpulab.transpose(s).square().sum()
            + gpulab.add(s, t, alpha=2.0, beta=-3.0).square().sum())
    ours.backward()
    got = [p.grad.clone() for p in (a, b, s, t)]
    for p in (a, b, s, t):
        p.grad = None
    torch.backends.cuda.matmul.allow_tf32 = False
    ref = (0.5 * a @ b).square().sum() + s.t().square().sum() + (2 * s - 3 * t).square().sum()
    ref.backward()
    for g, p in zip(got, (a, b, s, t)):
        torch.testing.assert_close(g, p.grad, rtol=1e-4, atol=1e-5)


def test_gradients_keep_the_precision():
    """The backward's two products run at the forward's precision: with tf32 the gradients carry
    TF32's error, which the fp32 ones do not (where the tensor cores take 512 × 4096)."""
    if not gpulab.sgemm_precision_supported("tf32"):
        pytest.skip("this GPU has no TF32 tensor cores (sm_75): tf32 is refused")
    def grads(precision):
        a, b = cuda(512, 4096).requires_grad_(), cuda(4096, 512, seed=1).requires_grad_()
        gpulab.sgemm(a, b, precision=precision).sum().backward()
        return a.grad, b.grad
    fp32, tf32 = grads("fp32"), grads("tf32")
    for g32, g_tf32 in zip(fp32, tf32):
        torch.testing.assert_close(g_tf32, g32, rtol=5e-3, atol=5e-2)
    assert not torch.equal(tf32[0], fp32[0])


def test_which_path_a_call_takes():
    x = cuda(1000)
    assert gpulab.sum(x).grad_fn is None  # eager, no gradient: the direct path
    x.requires_grad_()
    assert gpulab.sum(x).grad_fn is not None  # a gradient wanted: the operator
    with torch.no_grad():
        assert gpulab.sum(x).grad_fn is None
    out = torch.empty(1, device="cuda")
    assert gpulab.sum(x.detach(), out=out) is out  # the caller's out= object comes back
    m = cuda(5, 5)
    assert gpulab.zero_triangle(m) is m and torch.equal(m, m.tril())
    c = cuda(4, 4)
    assert gpulab.sgemm(cuda(4, 3), cuda(3, 4), c, beta=1.0) is c


def test_direct_path_declines_what_it_cannot_run():
    """The direct path answers None, and the general path then says what is wrong."""
    from gpulab import _ops
    assert _ops.sum(cuda(10).to(torch.float16), None) is None
    assert _ops.sum(cuda(10, 10)[:, ::2], None) is None
    assert _ops.sum(torch.ones(3), None) is None
    assert _ops.histogram(cuda(10, dtype=torch.int32), 5, torch.empty(4, device="cuda", dtype=torch.uint32)) is None
    with pytest.raises(TypeError, match="dtype float16 is not supported"):
        gpulab.sum(cuda(10).to(torch.float16))
    with pytest.raises(ValueError, match="needs the input contiguous"):
        gpulab.sum(cuda(10, 10)[:, ::2])
    with pytest.raises(ValueError, match=r"out must have shape \(5,\)"):
        gpulab.histogram(cuda(10, dtype=torch.int32), 5, out=torch.empty(4, device="cuda", dtype=torch.uint32))


def test_operators_raise_on_bad_input():
    """torch.ops.gpulab.* called directly raise the general path's exception types and messages."""
    with pytest.raises(ValueError, match="gpulab.sgemm: a is 3 x 4 and b is 5 x 6: the inner sizes differ"):
        ops.sgemm(cuda(3, 4), cuda(5, 6))
    with pytest.raises(ValueError, match="gpulab.sgemm: precision must be"):
        ops.sgemm(cuda(3, 4), cuda(4, 6), 1.0, "fp16")
    with pytest.raises(TypeError, match="gpulab.sum: dtype float16 is not supported; use int32, float32, float64"):
        ops.sum(cuda(10).to(torch.float16))
    with pytest.raises(ValueError, match="gpulab.conv3x3: border must be"):
        ops.conv3x3(image(4, 4), SHARPEN, 1, "wrap")
    with pytest.raises(TypeError, match=r"gpulab.sum takes CUDA arrays; got a torch.Tensor on cpu"):
        ops.sum(torch.ones(3))  # a CPU tensor: the checks, not a missing kernel (NotImplementedError)


# One bad argument each, as (name, call, whether the call can want a gradient): the same exception,
# type and message, on every route: the direct path's decline into the general path, the
# operator under autograd, the operator inside torch.compile, and the general path on CuPy arrays.
BAD_CALLS = [
    ("sum on the CPU", lambda t: gpulab.sum(t(torch.ones(3))), True),
    ("sum of float16", lambda t: gpulab.sum(t(cuda(10).half())), True),
    ("sum of a strided view", lambda t: gpulab.sum(t(cuda(10, 10)[:, ::2])), True),
    ("sum into a wrong out", lambda t: gpulab.sum(t(cuda(10)), out=torch.empty(2, device="cuda")), False),
    ("histogram into a wrong out", lambda t: gpulab.histogram(cuda(10, dtype=torch.int32), 5,
                                                              out=torch.empty(4, device="cuda", dtype=torch.uint32)), False),
    ("atax of 5 x 0", lambda t: gpulab.atax(t(cuda(5, 0)), t(cuda(0))), True),
    ("atax, x too short", lambda t: gpulab.atax(t(cuda(5, 4)), t(cuda(3))), True),
    ("inclusive_scan of float16", lambda t: gpulab.inclusive_scan(t(cuda(10).half())), True),
    ("exclusive_scan into float64", lambda t: gpulab.exclusive_scan(t(cuda(10)), out=torch.empty(10, device="cuda", dtype=torch.float64)), False),
    ("transpose of 3-D", lambda t: gpulab.transpose(t(cuda(2, 3, 4))), True),
    ("transpose of a transposed view", lambda t: gpulab.transpose(t(cuda(6, 5).t())), True),
    ("transpose into a wrong out", lambda t: gpulab.transpose(t(cuda(6, 5)), out=torch.empty(6, 5, device="cuda")), False),
    ("add of two shapes", lambda t: gpulab.add(t(cuda(3, 4)), t(cuda(4, 3))), True),
    ("add of float64", lambda t: gpulab.add(t(cuda(3, 4)), t(cuda(3, 4, dtype=torch.float64))), True),
    ("zero_triangle of 1-D", lambda t: gpulab.zero_triangle(cuda(7)), False),
    ("sgemm of a b strided both ways", lambda t: gpulab.sgemm(t(cuda(8, 6)), t(cuda(6, 18)[:, ::2])), True),
    ("sgemm, inner sizes differ", lambda t: gpulab.sgemm(t(cuda(8, 6)), t(cuda(5, 9))), True),
    ("sgemm into a wrong c", lambda t: gpulab.sgemm(cuda(8, 6), cuda(6, 9), cuda(8, 8), beta=1.0), False),
    ("conv3x3 of 4 channels", lambda t: gpulab.conv3x3(cuda(4, 4, 4, dtype=torch.uint8, low=0, high=255)), False),
]


def _raised(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the exception itself is what is compared
        return type(error), str(error)
    return None, "nothing raised"


def _plain(t):
    return t


def _wanting_gradient(t):
    return t.detach().requires_grad_() if t.dtype.is_floating_point else t


@pytest.mark.parametrize("name, call, differentiable", BAD_CALLS, ids=[case[0] for case in BAD_CALLS])
def test_bad_input_raises_the_same_on_every_route(name, call, differentiable):
    expected = _raised(lambda: call(_plain))
    assert expected[0] in (TypeError, ValueError), expected
    if differentiable:
        assert _raised(lambda: call(_wanting_gradient)) == expected
    torch._dynamo.reset()
    compiled = torch.compile(lambda: call(_plain))
    assert _raised(compiled) == expected


def test_bad_input_raises_the_same_for_cupy():
    cupy = pytest.importorskip("cupy")
    for name, call, _ in BAD_CALLS:
        expected = _raised(lambda: call(_plain))
        if "on cpu" in expected[1]:  # CuPy has no CPU arrays
            continue
        got = _raised(lambda: call(lambda t: cupy.from_dlpack(t) if t.is_cuda else t))
        assert got == expected, name
