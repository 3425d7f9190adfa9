#!/usr/bin/env bash
# One H200 (session 28): the Python module against the library with tf32's vendor path: every Python
# test, which libcublas the process maps, and gpulab.sgemm(precision="tf32") against torch.mm with TF32.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: python build and tests, tf32 against torch.mm TF32"
  pyroot=/tmp/gpulab_python; rm -rf $pyroot && python3 -m pip install -q --no-build-isolation --no-deps --target $pyroot -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$B/prefix" . > $R/python_build.txt 2>&1; echo "python build exit code: $?"; tail -5 $R/python_build.txt
  export PYTHONPATH=$pyroot XLA_PYTHON_CLIENT_PREALLOCATE=false
  timeout 240 python3 -m pytest -q -rs -p no:cacheprovider python/tests --junitxml=$R/python_tests.xml 2>&1 | tail -12; echo "python tests exit code: ${PIPESTATUS[0]}"
  timeout 120 python3 - <<'PY'
import gpulab, torch
def mapped():
    return sorted({line.split()[-1] for line in open("/proc/self/maps") if "libcublas.so" in line})
print("torch", torch.__version__, "CUDA", torch.version.cuda)
def time_ms(f, reps=30):
    for _ in range(3): f()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record(); f(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    return sorted(ts)[len(ts)//2]
torch.backends.cuda.matmul.allow_tf32 = True
for n in (1024, 4096, 8192):
    a = torch.rand(n, n, device="cuda") * 2 - 1
    b = torch.rand(n, n, device="cuda") * 2 - 1
    w = torch.rand(n, n, device="cuda") * 2 - 1
    for name, g, t in (("a @ b", lambda: gpulab.sgemm(a, b, precision="tf32"), lambda: torch.mm(a, b)),
                       ("x @ w.T", lambda: gpulab.sgemm(a, w.T, precision="tf32"), lambda: torch.mm(a, w.T))):
        for rnd in (1, 2):
            tg, tt = time_ms(g), time_ms(t)
            print(f"{n}^3 {name} round {rnd}: gpulab tf32 {tg:.4f} ms, torch.mm TF32 {tt:.4f} ms, ratio {tt / tg:.3f}")
print("libcublas mapped:", mapped())
PY
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
