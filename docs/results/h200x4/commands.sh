# A lease of nvidia-h200-x4 (four H200s, NVLink NV18 between every pair), the build of 062b8ad carried
# (build/ci-device.tar.xz), 2026-11-28: gathers by the copy engines (the build's default) against NCCL
# (GPULAB_MULTI_COPY_ENGINES=0) in one call; then each GPU alone (reduce 2^29 and 2^31, conv 30720 wide
# at 4320 and 17280 rows).
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: multi-GPU tests (sgemm, conv), sgemm and conv gathered by copy engines and by NCCL, each GPU alone"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  nvidia-smi topo -m | head -8
  echo "== $(date -u +%T) multi-GPU tests"
  timeout 240 $B/tests/gpulab_gpu_tests --gtest_filter='MultiGpu.Sgemm*:MultiGpu.Conv*:MultiGpuLoopback.Sgemm*' --gtest_brief=1 --gtest_output=json:$R/multi_gpu_tests.json; echo "multi gpu tests exit code: $?"
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
  for i in 0 1 2 3; do
    echo "== $(date -u +%T) GPU $i alone: reduce float32 2^29, 2^31 (library); conv 30720x4320 and 30720x17280"
    CUDA_VISIBLE_DEVICES=$i timeout 60 $G bench reduce -n 2^29,2^31 -t float32 --variants library --reps 20 --no-cpu --no-ceilings --md $R/alone_reduce_gpu$i.md > /dev/null 2>&1; echo "exit code: $?"
    grep -E "library" $R/alone_reduce_gpu$i.md | cut -c1-160
    CUDA_VISIBLE_DEVICES=$i timeout 60 $G bench conv -s 30720x4320,30720x17280 --variants library --reps 20 --no-cpu --no-ceilings --md $R/alone_conv_gpu$i.md > /dev/null 2>&1; echo "exit code: $?"
    grep -E "library" $R/alone_conv_gpu$i.md | cut -c1-160
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
