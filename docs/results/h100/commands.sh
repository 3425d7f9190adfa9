# The call of this record, on the GPU machine with the build of 94c21d7 carried (scripts/pack_device.sh ci's build/ci-device.tar.xz)
export GPULAB_BIN=build/ci-device
GPU_TESTS='Histogram*' FUZZ_CALLS=30000 CPP_FUZZ_CALLS=2000 bash scripts/device_run.sh tests fuzz
export PYTHONPATH=/tmp/gpulab_python_ci-device XLA_PYTHON_CLIENT_PREALLOCATE=false
python3 scripts/peers_python.py --only histogram_range,histogram_edges,histogram_rows --json $OUT/extra/peers_float_python.json \
  > $OUT/extra/peers_float_python.txt
build/ci-device/gpulab sanitize float_histogram --md $OUT/extra/sanitize_float.md > $OUT/extra/sanitize_float.txt
