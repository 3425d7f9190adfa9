# A lease of nvidia-h200-x4 (four H200s), the build of 6f8e54c carried (build/ci-device.tar.xz),
# 2026-11-28: the library's choice (copy engines for staged sends only) over 1, 2, 4 GPUs, NCCL alone
# and with NCCL_MAX_CTAS=8 at 8192³; on one GPU the sgemm GPU tests and pytest -k sgemm (818a2a9's
# review under them).
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: multi-GPU sgemm tests, bench sgemm --gpus 2,4, sgemm GPU tests, pytest -k sgemm"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  echo "== $(date -u +%T) multi-GPU tests"
  timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='MultiGpu.Sgemm*' --gtest_brief=1 --gtest_output=json:$R/multi_gpu_tests.json; echo "multi gpu tests exit code: $?"
  echo "== $(date -u +%T) sgemm over 1, 2, 4 GPUs"
  timeout 130 $G bench sgemm -s 4096,8192,16384 --gpus 2,4 --placement resident --reps 10 --md $R/multi_sgemm.md --json $R/multi_sgemm.json > $R/multi_sgemm.txt 2>&1; echo "exit code: $?"
  grep -E "^### |^\| [124] \| resident" $R/multi_sgemm.md | cut -c1-150
  echo "== $(date -u +%T) sgemm 8192³ over 4 GPUs by NCCL (GPULAB_MULTI_COPY_ENGINES=0), then with NCCL_MAX_CTAS=8"
  GPULAB_MULTI_COPY_ENGINES=0 timeout 40 $G bench sgemm -s 8192 --gpus 4 --placement resident --reps 10 --md $R/multi_sgemm_nccl.md > $R/multi_sgemm_nccl.txt 2>&1; echo "exit code: $?"
  grep -E "^\| [14] \| resident" $R/multi_sgemm_nccl.md | cut -c1-150
  NCCL_MAX_CTAS=8 GPULAB_MULTI_COPY_ENGINES=0 timeout 40 $G bench sgemm -s 8192 --gpus 4 --placement resident --reps 10 --md $R/multi_sgemm_nccl_8ctas.md > $R/multi_sgemm_nccl_8ctas.txt 2>&1; echo "exit code: $?"
  grep -E "^\| [14] \| resident" $R/multi_sgemm_nccl_8ctas.md | cut -c1-150
  echo "== $(date -u +%T) sgemm GPU tests"
  timeout 120 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*:-MultiGpu*' --gtest_output=json:$R/gpu_tests.json --gtest_brief=1 2>&1 | tail -4; echo "gpu tests exit code: ${PIPESTATUS[0]}"
  echo "== $(date -u +%T) python: pytest -k sgemm"
  pyroot=/tmp/gpulab_python; rm -rf $pyroot && python3 -m pip install -q --no-build-isolation --no-deps --target $pyroot -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$B/prefix" . > $R/python_build.txt 2>&1; echo "python build exit code: $?"
  export PYTHONPATH=$pyroot XLA_PYTHON_CLIENT_PREALLOCATE=false
  timeout 150 python3 -m pytest -q -k sgemm python/tests 2>&1 | tail -4; echo "pytest exit code: ${PIPESTATUS[0]}"
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
