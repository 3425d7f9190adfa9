# The call of this record, on the GPU machine (nvidia-h100-x1) with the build of 5035eec carried
# (build/ci-device.tar.xz), 2026-11-27 18:36-18:40: the segmented scans' GPU tests (passed), the
# segmented scan's ladder at 2^28, under Nsight Compute at 2^24, and the peers (torch).
tar xJf build/ci-device.tar.xz -C build
GPU_TESTS='SegmentedScan.*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests segmented_scan
