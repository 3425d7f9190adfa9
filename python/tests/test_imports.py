"""`import gpulab` in a fresh interpreter, before and after each framework it works with (gpulab
imported before torch crashed the interpreter where the C++ runtime was linked into its
modules with its symbols exported). Each order runs in its own process, since the crash was in
the import itself; an order whose framework is not installed is skipped, visibly."""
import importlib.util
import subprocess
import sys

import pytest

ORDERS = [
    ("gpulab",),
    ("gpulab", "torch"),
    ("torch", "gpulab"),
    ("gpulab", "cupy"),
    ("cupy", "gpulab"),
    ("gpulab", "jax"),
]


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_import_order(order):
    missing = [m for m in order if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    # After the imports, a call that prints a PyTorch schema-like value through iostreams inside
    # torch (its first use of the C++ runtime's formatting, where the crash was) where torch is there.
    script = "; ".join(f"import {m}" for m in order) + "; import gpulab; print(gpulab.device_count() >= 0)"
    if "torch" in order:
        script += "; import torch; print(torch.ops.aten.add.Tensor._schema)"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit code {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.startswith("True")
