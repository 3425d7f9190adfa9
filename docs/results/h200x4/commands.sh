# The calls of this record, on the GPU machine (a lease of nvidia-h200-x4: four H200s, NVLink NV18
# between every pair) with the build of a45c808 carried (build/ci-device.tar.xz), 2026-11-28, each
# GPU's work issued by its own launcher (one process) or one process a GPU (MPI):
# 1. 06:54-07:04: the multi-GPU tests (23 pass, 6 minutes), then atax and scan over 1, 2 and 4 GPUs;
#    the call's limit cut it in sgemm, before its results were packed: multi_scan.* did not come
#    back (their tables are in log.txt).
GPULAB_BIN=build/ci-device MULTI_PROBLEMS="atax scan sgemm" bash scripts/device_run.sh notests multi-tests multi
# 2. 07:04-07:08: sgemm over 1, 2 and 4 GPUs, the errors that end every rank; then 16384³ over 1 and 4
#    GPUs in four stages (this build) against eight (a45c808 with multi_sgemm_stages' cap at 8, its
#    gpulab binary carried), in turn 8, 4, 8: sgemm_stages_4_against_8.txt.
GPULAB_BIN=build/ci-device MULTI_PROBLEMS=sgemm bash scripts/device_run.sh notests multi
for b in gpulab-stages8 ci-device/gpulab gpulab-stages8; do
  build/$b bench sgemm -s 16384 --gpus 4 --placement resident --reps 5
done
# 3. 07:08-07:18: the six problems under MPI, then reduce, atax and scan weakly scaled.
GPULAB_BIN=build/ci-device bash scripts/device_run.sh notests multi-mpi
GPULAB_BIN=build/ci-device MULTI_PROBLEMS="reduce atax scan" bash scripts/device_run.sh notests multi-weak
# Here, after filing: one page of the record's reports.
build/ci/gpulab report docs/results/h200x4/ceilings_gpus.json $(ls docs/results/h200x4/multi_*.json | grep -v gpu_tests) -o docs/results/h200x4/showcase.html
