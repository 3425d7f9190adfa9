# The calls of this record, on the GPU machine (a lease of nvidia-h100-x4: four H100s, NVLink NV18
# between every pair) with the build of e818648 carried (build/ci-device.tar.xz), 2026-11-27, each
# GPU's work issued by its own launcher:
# 1. 15:28-15:34: the multi-GPU tests over the four GPUs (21 passed) and, at the same time on the
#    fourth GPU alone (a check, nothing timed), the GPU tests of the histogram and sgemm, whose code
#    moved since the last full run (5 894, 0 failures). (The call ran to its 600 s limit: a wait
#    loop after both had finished matched its own command line.)
tar xJf build/ci-device.tar.xz -C build
CUDA_VISIBLE_DEVICES=3 OUT=$OUT/hopper GPU_TESTS='*Histogram*:*Sgemm*' GPULAB_BIN=build/ci-device \
  bash scripts/device_run.sh tests > /dev/null 2>&1 &
OUT=$OUT/multi GPULAB_BIN=build/ci-device bash scripts/device_run.sh notests multi-tests
# 2. 15:38-15:43: reduce, histogram and conv from one process over 1, 2 and 4 GPUs, resident and
#    from host memory, `gpulab ceilings --gpus 4`, the errors that must end every rank. (atax, scan,
#    sgemm, MPI and weak scaling with launchers were not run on four H100s: the session's device time.)
GPULAB_BIN=build/ci-device MULTI_PROBLEMS="reduce histogram conv" bash scripts/device_run.sh notests multi
