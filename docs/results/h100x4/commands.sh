# The call of this record, on the GPU machine (a lease of nvidia-h100-x4: four H100s, NVLink NV18
# between every pair) with the build of 94b6871 carried (scripts/pack_device.sh ci's build/ci-device.tar.xz),
# 2026-11-28 01:36-01:43: the weighted histogram's GPU tests on the first GPU (the exact rung's fix),
# the multi-GPU tests of sgemm and conv, sgemm and conv from one process over 1, 2 and 4 GPUs
# (each GPU's work issued by its own launcher; rows of C gathered by one all-gather in place where
# every rank has as many), `gpulab ceilings --gpus 4`, the errors that must end every rank.
export GPULAB_BIN=build/ci-device NCCL_NVLS_ENABLE=0
GPU_TESTS='HistogramWeighted.*' MULTI_TESTS='MultiGpu.Sgemm*:MultiGpu.Conv*' MULTI_PROBLEMS="sgemm conv" \
  bash scripts/device_run.sh tests multi-tests multi
