# The call of this record, on the GPU machine (nvidia-h100-x1) with the build of 130f5b3 carried
# (build/ci-device.tar.xz), 2026-11-27 21:10-21:12: the GPU tests of the weighted histogram and of
# multi::sgemm's stages (through loopback ranks and on one GPU), the weighted histogram's ladder at
# 2^26 and its peers. The weighted histogram's last bin came out wrong (a chunk wholly past the end
# added 0.0 to the slot before the warp's sub-histogram, racing with the warp there), which the
# same-bits test caught; the stages' tests failed only where they expected the 268 MB case to be
# replayed from graphs (the bench captures 16 MiB or less). Both mended at 0758d97.
tar xJf build/ci-device.tar.xz -C build
GPU_TESTS='HistogramWeighted.*:MultiGpuLoopback.Sgemm*:MultiGpu.Sgemm*' GPULAB_BIN=build/ci-device bash scripts/device_run.sh tests weighted_histogram
