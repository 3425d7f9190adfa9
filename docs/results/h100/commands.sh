# The call of this record, on the GPU machine with the build of b6612c1 carried (scripts/pack_device.sh ci's build/ci-device.tar.xz)
export GPULAB_BIN=build/ci-device
GPU_TESTS='Histogram*' FUZZ_CALLS=10000 CPP_FUZZ_CALLS=2000 bash scripts/device_run.sh tests weighted_histogram fuzz
export PYTHONPATH=/tmp/gpulab_python_ci-device XLA_PYTHON_CLIENT_PREALLOCATE=false
python3 scripts/peers_python.py --only histogram,histogram_weighted --json $OUT/extra/peers_hist.json > $OUT/extra/peers_hist.txt
build/ci-device/gpulab bench float_histogram -t float32 --json $OUT/extra/float_f32.json > $OUT/extra/float_f32.txt
ncu --kernel-name regex:'replicated_resident|halfword_shared|packed_registers' --launch-count 1 --set full \
  build/ci-device/gpulab bench float_histogram -n 2^26 -m 256 -t float32 --form range --variants library --reps 1 --warmup 0 \
  --e2e-reps 1 --no-cpu --no-ceilings > $OUT/extra/ncu_f32_256.txt
