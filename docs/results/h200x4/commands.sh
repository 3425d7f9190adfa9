# nvidia-h200-x4, 2026-11-28, commit c96b0d3 (scripts/pack_device.sh ci; build/callAI.sh, then build/callAJ.sh):
B=build/ci-device; T=$B/tests/gpulab_gpu_tests; export NCCL_NVLS_ENABLE=0
timeout 330 $T --gtest_filter='MultiGpu*:StreamCaptures.*'   # cut short by its limit (exit 124)
$B/gpulab bench sgemm -s 4096,8192,16384 --gpus 2,4 --placement resident --reps 10 --md multi_sgemm.md
timeout 420 $T --gtest_filter='MultiGpu.*:StreamCaptures.*:MultiGpuLaunchers.*'
