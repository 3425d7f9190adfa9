# nvidia-h200, 2026-11-28, commit 0507d0d on branch wip/tf32-persistent (not in main; scripts/pack_device.sh ci; build/callAG.sh):
B=build/ci-device; T=$B/tests/gpulab_gpu_tests
$T --gtest_filter='Sgemm*:*Sgemm*'
compute-sanitizer --tool memcheck|racecheck $T --gtest_filter='*small_wgmma*plain*:*small_wgmma*300x301*'
$B/gpulab bench sgemm -s 4096,8192 --forms NN,NT,TN,TT --variants wgmma_3xtf32,x_3xtf32_one_each,library_3xtf32,wgmma_tf32_wide,x_tf32_wide_one_each,library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings
