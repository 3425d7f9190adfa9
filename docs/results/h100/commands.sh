# The call of this record: nvidia-h100-x1, 2026-11-27 15:54-15:58, the build of e818648 carried
# (scripts/test.sh's build/ci-device.tar.xz: the ci preset, sm_75 + sm_90), whether the library's
# Hopper numbers moved since 3aa6775 (issue 62's every-GPU work between them). Then, here:
#   build/ci/gpulab compare <3aa6775's docs/results/h100/suite.json> suite.json --md compare_3aa6775.md
GPULAB_BIN=build/ci-device bash scripts/device_run.sh notests suite
