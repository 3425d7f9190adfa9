# The call of this record, on the GPU machine (nvidia-h100-x1) with the build of 124ed84 carried
# (build/ci-device.tar.xz), 2026-11-27 18:15-18:23: the segmented scans' GPU tests (14 with the
# plain scans', the checks and the registry: passed), the segmented scan's ladder at 2^28 (its
# tables in log.txt: the reports were past the files a call returns) and under Nsight Compute at
# 2^24, and `gpulab sanitize segmented_scan` (sanitize_segmented_scan.md). The peers' composition,
# 0.8 s a call at 2^28 with 30 repetitions, ran past the call's limit.
tar xJf build/ci-device.tar.xz -C build
GPU_TESTS='SegmentedScan.*:ScanLibrary.*:Check*:Registry.*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests segmented_scan
build/ci-device/gpulab sanitize segmented_scan --md $OUT/sanitize.md
