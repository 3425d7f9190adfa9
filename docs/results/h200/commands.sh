# The calls of this record, each on the GPU machine with the build of e222c3b carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
# the same call, after device_run.sh (extras_log.txt):
timeout 90 build/device/gpulab bench histogram -n 2^24,2^26,2^28 -m 2^17,2^20,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,library --no-cpu --reps 10 --json $OUT/extras/hist_sampled.json --md $OUT/extras/hist_sampled.md
timeout 40 build/device/gpulab bench conv -s 12345x6789,7680x4320,3841x2161 --layout packed --variants shared_tile,library,vendor --no-cpu --json $OUT/extras/conv_staged.json --md $OUT/extras/conv_staged.md
