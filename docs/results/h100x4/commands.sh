# The calls of this record, each on the GPU machine (nvidia-h100-x4: four H100s, NVLink NV18 between
# every pair) with the build of 268b52d carried (scripts/test.sh's build/device.tar.xz), 2026-11-27.
# 1. 07:30-07:40 (584 s of its 600): every problem's one-process benches over 1, 2 and 4 GPUs,
#    `gpulab ceilings --gpus 4`, the errors that must end every rank.
GPULAB_BIN=build/device bash scripts/device_run.sh notests multi
# 2. 07:41-07:47: the multi-GPU tests over the four GPUs and, at the same time on the fourth GPU
#    alone (a check, nothing timed), issue 61's fuzz: 100000 Python calls, 20000 of the C++ API.
tar xJf build/device.tar.xz -C build
CUDA_VISIBLE_DEVICES=3 OUT=$OUT/fuzz FUZZ_CALLS=100000 CPP_FUZZ_CALLS=20000 GPULAB_BIN=build/device \
  bash scripts/device_run.sh notests fuzz > /dev/null 2>&1 &
GPULAB_BIN=build/device bash scripts/device_run.sh notests multi-tests
wait
# 3. 07:47-07:52: the six problems under MPI, one process a GPU.
GPULAB_BIN=build/device bash scripts/device_run.sh notests multi-mpi
# 4. 07:52-07:59, stopped at its 420 s (the session's device time): weak scaling; reduce, atax and
#    scan's CSV came back, the histogram's size was refused over four GPUs (2^31 − 1 values a GPU:
#    its counts are 32-bit), sgemm and conv did not run.
GPULAB_BIN=build/device bash scripts/device_run.sh notests multi-weak
# Here, after filing: one page of every report of the record (each call's page held its own).
build/release/gpulab report docs/results/h100x4/ceilings_gpus.json $(ls docs/results/h100x4/multi_*.json | grep -v gpu_tests) \
  -o docs/results/h100x4/showcase.html
