# The calls of this record, each on the GPU machine with the build of da705c3 carried (scripts/test.sh's build/ci-device.tar.xz)
GPU_TESTS='HistogramFloat*:HistogramWeighted*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests float_histogram python
# then, in the same call (its report: sanitize_float_histogram.txt):
build/ci-device/gpulab sanitize float_histogram
