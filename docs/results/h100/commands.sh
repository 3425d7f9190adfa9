# The call of this record (asked as nvidia-h200, given an H100), with the build of b3ddbce carried
# (scripts/pack_device.sh ci's build/ci-device.tar.xz): Nsight Compute of the kernels issue 67 names, for
# the H100's side of it (ncu runs at its base clock, 1.59 GHz: durations are not the benches').
export GPULAB_BIN=build/ci-device; bash scripts/device_run.sh notests
B=build/ci-device/gpulab
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats"
Q="--reps 1 --warmup 0 --e2e-reps 1 --no-cpu --no-ceilings"
# atax: the regex found rung 4's two launches (fused_panels), not the library's cooperative kernel
ncu --kernel-name regex:'fused_cooperative|fused_panels' --launch-count 2 $S $B bench atax -s 8960x17920 --variants 4,5 $Q > $OUT/extra/ncu_atax.txt
ncu --kernel-name regex:'scan_kernel|scan_staged_kernel' --launch-count 1 $S $B bench scan -n 2^28 -t int32 --variants library $Q > $OUT/extra/ncu_scan.txt
ncu --kernel-name regex:'lanes|sliding_window|shared_tile' --launch-count 1 $S $B bench conv -s 7680x4320 --variants library $Q > $OUT/extra/ncu_conv.txt
$B bench atax -s 8960x17920 --json $OUT/extra/atax.json > $OUT/extra/atax.txt
