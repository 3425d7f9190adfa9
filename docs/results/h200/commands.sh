# nvidia-h200, 2026-11-28, commit 6a26e96 (scripts/pack_device.sh ci; build/callAN.sh):
G=build/ci-device/gpulab
NCU='ncu --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SpeedOfLight --launch-count 4'
$NCU $G run atax -s 17920x8960 --variant library --reps 1
$NCU $G run scan -n 2^28 -t int32 --variant library --reps 1
$NCU $G run conv -s 7680x4320 --variant library --reps 1
