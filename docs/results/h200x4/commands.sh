# A lease of nvidia-h200-x4 (four H200s), the build of 2ae414d carried (build/ci-device.tar.xz),
# 2026-11-28: the multi-GPU bench's runs queued back to back. Two calls: build/callU.sh (below), then
# histogram and atax over 1 and 4 GPUs.
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: multi-GPU reduce tests; reduce 2^31 and 8, conv in bands over 1, 2, 4 GPUs (runs queued back to back)"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  echo "== $(date -u +%T) multi-GPU reduce tests"
  timeout 50 $B/tests/gpulab_gpu_tests --gtest_filter='MultiGpu.Reduce*' --gtest_brief=1 --gtest_output=json:$R/multi_gpu_tests.json; echo "multi gpu tests exit code: $?"
  echo "== $(date -u +%T) reduce float32 2^31 and 8"
  timeout 50 $G bench reduce -n 2^31,8 -t float32 --gpus 2,4 --placement resident --reps 10 --md $R/multi_reduce.md --json $R/multi_reduce.json > $R/multi_reduce.txt 2>&1; echo "exit code: $?"
  grep -E "^### |^\| [124] \| resident" $R/multi_reduce.md | cut -c1-170
  echo "== $(date -u +%T) conv 30720x17280 in bands"
  timeout 50 $G bench conv -s 30720x17280 --gather none --gpus 4 --placement resident --reps 10 --md $R/multi_conv.md --json $R/multi_conv.json > $R/multi_conv.txt 2>&1; echo "exit code: $?"
  grep -E "^### |^\| [124] \| resident" $R/multi_conv.md | cut -c1-150
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
# The second call, on the same lease:
tar xJf build/ci-device.tar.xz -C build; B=build/ci-device
timeout 70 $B/gpulab bench histogram -n 2^31 -m 256 --gpus 4 --placement resident --reps 10 --md $R/multi_histogram.md --json $R/multi_histogram.json
timeout 70 $B/gpulab bench atax -s 45000x45000 --gpus 4 --placement resident --reps 10 --md $R/multi_atax.md --json $R/multi_atax.json
