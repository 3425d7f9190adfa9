# The call of this record, on the GPU machine (a lease of nvidia-h100-x4 that came as four H200s,
# NVLink NV18 between every pair) with the build of 6047ebd carried (build/ci-device.tar.xz),
# 2026-11-27 14:22-14:26: reduce, histogram and conv from one process over 1, 2 and 4 GPUs, each
# GPU's work issued by its own launcher; `gpulab ceilings --gpus 4`; the errors that must end every
# rank. (The session's device time allowed this one call: atax, scan, sgemm, MPI, weak scaling and
# the multi-GPU tests were not run on four GPUs.)
GPULAB_BIN=build/ci-device MULTI_PROBLEMS="reduce histogram conv" bash scripts/device_run.sh notests multi
