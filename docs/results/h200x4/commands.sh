# A lease of nvidia-h200-x4 (four H200s), the build of 1d1f02f carried (build/ci-device.tar.xz),
# 2026-11-28: each copy to a peer cut in four lanes (a stream each), against NCCL in one call.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: multi-GPU tests (sgemm, conv), sgemm and conv gathered by copy engines (four lanes) and by NCCL"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  nvidia-smi topo -m | head -8
  echo "== $(date -u +%T) multi-GPU tests"
  timeout 240 $B/tests/gpulab_gpu_tests --gtest_filter='MultiGpu.Sgemm*:MultiGpu.Conv*' --gtest_brief=1 --gtest_output=json:$R/multi_gpu_tests.json; echo "multi gpu tests exit code: $?"
  for ce in 1 0; do
    echo "== $(date -u +%T) sgemm, GPULAB_MULTI_COPY_ENGINES=$ce"
    GPULAB_MULTI_COPY_ENGINES=$ce timeout 150 $G bench sgemm -s 4096,8192,16384 --gpus 2,4 --placement resident --reps 10 --md $R/multi_sgemm_ce$ce.md --json $R/multi_sgemm_ce$ce.json > $R/multi_sgemm_ce$ce.txt 2>&1; echo "exit code: $?"
    grep -E "^### |^\| [124] \| resident" $R/multi_sgemm_ce$ce.md | cut -c1-150
  done
  for ce in 1 0; do
    echo "== $(date -u +%T) conv gathered, GPULAB_MULTI_COPY_ENGINES=$ce"
    GPULAB_MULTI_COPY_ENGINES=$ce timeout 100 $G bench conv -s 30720x17280,7680x4320 --gather all --gpus 4 --placement resident --reps 10 --md $R/multi_conv_ce$ce.md --json $R/multi_conv_ce$ce.json > $R/multi_conv_ce$ce.txt 2>&1; echo "exit code: $?"
    grep -E "^### |^\| [124] \| resident" $R/multi_conv_ce$ce.md | cut -c1-150
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
