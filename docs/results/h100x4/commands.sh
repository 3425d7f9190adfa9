# The calls of this record, on the GPU machine (a lease of nvidia-h100-x4: four H100s, NVLink NV18
# between every pair) with the build of 8cc802d carried (build/ci-device.tar.xz), 2026-11-27, each
# GPU's work issued by its own launcher:
# 1. 17:45-17:54, on the first GPU alone: the GPU tests of the scans, the ladders and the registry
#    (SegmentedScan.* new), the segmented scan's bench and peers, `gpulab sanitize segmented_scan`
#    (sanitize_segmented_scan.md). The bench's CPU baseline failed two float32 rows at 2^28: its
#    tolerance was NaN (an unbounded gamma times a zero sum), fixed after this record. The call's
#    multi-GPU part that followed was cut by the call's limit (the bench took 7.5 minutes).
tar xJf build/ci-device.tar.xz -C build
CUDA_VISIBLE_DEVICES=0 GPU_TESTS='SegmentedScan.*:ScanLibrary.*:Ladders.*:Registry.*' GPULAB_BIN=build/ci-device \
  bash scripts/device_run.sh tests segmented_scan
build/ci-device/gpulab sanitize segmented_scan --md $OUT/seg/sanitize.md
# 2. 17:57-18:02: atax, scan and sgemm from one process over 1, 2 and 4 GPUs, resident and from host
#    memory, `gpulab ceilings --gpus 4`, the errors that must end every rank. (reduce, histogram and
#    conv with launchers at four: the earlier record e818648; MPI and weak scaling at four: not run.)
GPULAB_BIN=build/ci-device MULTI_PROBLEMS="atax scan sgemm" bash scripts/device_run.sh notests multi
# Here, after filing: one page of the record's reports.
build/ci/gpulab report docs/results/h100x4/ceilings_gpus.json docs/results/h100x4/multi_*.json docs/results/h100x4/segmented_scan.json \
  -o docs/results/h100x4/showcase.html
