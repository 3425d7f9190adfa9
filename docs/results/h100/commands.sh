# The call of this record, on the GPU machine with the build of fdd8df0 carried (build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh tests; tar czf $OUT/results.tgz -C device-out results  # (the tar, added by mistake, replaced results.tgz with an empty archive)
