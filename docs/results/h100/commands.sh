# The calls of this record, each on the GPU machine with the build of 279cd34 carried (scripts/test.sh's build/ci-device.tar.xz)
GPU_TESTS='Histogram*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests float_histogram weighted_histogram python
# then, in the same call (reports: histogram_library.txt, sanitize_histograms.txt); peers_python.py stopped at its per-row pairs (fixed at 9840a20):
build/ci-device/gpulab bench histogram -n 2^26 -m 8,256,4096,65536 -d uniform,degenerate --variants library --no-cpu
build/ci-device/gpulab sanitize float_histogram weighted_histogram histogram
