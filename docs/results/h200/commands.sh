# One call on an H200 with the build of 25a04a7 (scripts/pack_device.sh ci): the int32 and float histogram GPU tests, the histogram ladder at 2^26 values
export GPULAB_BIN=build/ci-device; GPU_TESTS="*HistogramLadder*:Histogram.*:HistogramLibrary.*:HistogramFloat.*" bash scripts/device_run.sh tests
build/ci-device/gpulab bench histogram -n 2^26 -m 8,256,4096,65536 --json histogram.json > histogram.txt
