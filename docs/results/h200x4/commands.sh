# nvidia-h200-x4, 2026-11-28, commit 6a26e96 (scripts/pack_device.sh ci; build/callAM.sh):
B=build/ci-device; G=$B/gpulab; T=$B/tests/gpulab_gpu_tests; export NCCL_NVLS_ENABLE=0
$G bench sgemm -s 4097,4096 --variants warp_tiles,pipelined,fragments,staged,library,cublasSgemm --reps 10 --no-cpu --no-ceilings
$T --gtest_filter='*Sgemm*:-MultiGpu*'
$T --gtest_filter='MultiGpu.Sgemm*'
$G bench sgemm -s 4096,16384 --gpus 2,4 --placement resident --reps 10 --md multi_sgemm.md
