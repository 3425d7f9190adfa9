# The call of this record, on the GPU machine (nvidia-h100-x1) with the build of 49f6d4b carried
# (build/ci-device.tar.xz), 2026-11-27 18:29-18:32: the segmented scans' GPU tests (passed), the
# segmented scan's ladder at 2^28 (two blocks an SM), under Nsight Compute at 2^24, and the peers.
tar xJf build/ci-device.tar.xz -C build
GPU_TESTS='SegmentedScan.*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests segmented_scan
