# The calls of this record, on one GPU machine with the build of 158c6c5 carried (scripts/pack_device.sh ci's
# build/ci-device.tar.xz) and the CLI of b3ddbce beside it (build/gpulab_b3ddbce.xz): the histograms' tiles with
# the next tile's loads issued first (158c6c5, NEW) against without (b3ddbce, OLD), alternately, twice.
# 1. 02:03: log.txt (the machine's facts, the ceilings; its table's summary was lost to a wrong awk field)
GPULAB_BIN=build/ci-device bash scripts/device_run.sh notests; build/ci-device/gpulab ceilings
# 2. 02:05: prefetch_ab.txt
NEW=build/ci-device/gpulab; OLD=/tmp/gpulab_old   # xz -dc build/gpulab_b3ddbce.xz > /tmp/gpulab_old
for round in 1 2; do for b in OLD NEW; do bin=${!b}; echo "== $b round $round"
  $bin bench histogram -n 2^26 -m 8,256,4096,65536 -d uniform,degenerate --variants library --no-cpu --no-ceilings
  $bin bench float_histogram -t float32,float64 --form all --variants library --no-cpu --no-ceilings
done; done   # (each table's heading and library line kept)
