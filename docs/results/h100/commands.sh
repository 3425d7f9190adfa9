# The calls of this record, each on the GPU machine with the build of 42de198 carried (scripts/test.sh's build/ci-device.tar.xz)
GPU_TESTS='Histogram*:MultiGpuLoopback.*:Registry.*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests float_histogram weighted_histogram python
# then, in the same call (their reports: weighted_histogram_sorted.txt, sanitize_histograms.txt):
build/ci-device/gpulab bench weighted_histogram -m 2^20,2^24 --no-cpu -d uniform
build/ci-device/gpulab sanitize float_histogram weighted_histogram
