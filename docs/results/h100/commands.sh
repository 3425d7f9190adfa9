# The call of this record, on the GPU machine (nvidia-h100-x1) with the build of e626bf5 carried
# (build/ci-device.tar.xz), 2026-11-27 20:37-20:45: the GPU tests of the segmented scans, the weighted
# histogram and the registry (10, passed), the weighted histogram's ladder at 2^26 and its peers, the
# Python tests (298 passed; the new torch operators, their fakes and gradcheck among them), then
# `gpulab sanitize` of the two problems. Only log.txt came back: the call's last line packed the
# results folder a second time, over device_run.sh's results.tgz, after the folder was gone.
tar xJf build/ci-device.tar.xz -C build
GPU_TESTS='SegmentedScan.*:HistogramWeighted.*:Registry.*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests weighted_histogram python
build/ci-device/gpulab sanitize weighted_histogram segmented_scan --md $OUT/results/sanitize_wh.md > $OUT/sanitize_wh.txt 2>&1
