# nvidia-h200-x4, 2026-11-28, commit 8c9617c (scripts/pack_device.sh ci; build/callAH.sh):
B=build/ci-device; T=$B/tests/gpulab_gpu_tests; export NCCL_NVLS_ENABLE=0
$T --gtest_filter='*Sgemm*:-MultiGpu*'
$T --gtest_filter='MultiGpu.Sgemm*'
$B/gpulab bench sgemm -s 4096,8192,16384 --gpus 2,4 --placement resident --reps 10 --md multi_sgemm_peers.md
GPULAB_MULTI_PEER_WRITES=0 $B/gpulab bench sgemm -s 4096,8192,16384 --gpus 2,4 --placement resident --reps 10 --md multi_sgemm_gathered.md
