# The calls of this record, each on the GPU machine with the build of 1aebaa2 carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
build/device/gpulab bench sgemm -s 4096,8192,4097,1000,5000x3000x700 --variants fragments,paired,library,vendor --no-cpu --reps 10 --json $OUT/sgemm_paired.json --md $OUT/sgemm_paired.md   # the same call, after device_run.sh
