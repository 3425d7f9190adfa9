# One call on four H200s (nvidia-h200-x4), build of 1127edc carried (scripts/pack_device.sh ci cli, and the GPU tests binary packed alone); build/callBB.sh, not kept; its text:
#!/usr/bin/env bash
# Four H200s (session 27), issue 63: the multi-GPU scan with the scan's rung 8 as its local kernel
# (strong, weak; r and w for the bound); conv in bands under MPI against one process, both with
# the bench's runs queued (MPI was last measured at a45c808, runs alone); the multi-GPU scan tests.
set -u
tar xJf build/ci-device.tar.xz -C build; tar xJf build/tests-only.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
rows() { grep -E "^[a-z]+  |^ +[0-9] +(resident|host)" "$1"; }
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: multi scan strong and weak, r and w, conv bands MPI and one process, multi scan tests"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
  $G bench scan -n 2^30 -t float32 --kind inclusive --placement resident --gpus 4 --reps 20 --md $R/multi_scan.md --json $R/multi_scan.json > $R/multi_scan.txt 2>&1; rows $R/multi_scan.txt
  $G bench scan -n 2^30 -t float32 --kind inclusive --placement resident --gpus 4 --weak --reps 10 --md $R/multi_scan_weak.md --json $R/multi_scan_weak.json > $R/multi_scan_weak.txt 2>&1; rows $R/multi_scan_weak.txt
  echo "-- r: reduce 2^28 float32, one GPU"; $G bench reduce -n 2^28 -t float32 --variants library --reps 30 --no-cpu 2>&1 | grep -E " library " | tail -1
  echo "-- w: scan 2^28 float32, one GPU"; $G bench scan -n 2^28 -t float32 --variants library --reps 30 --no-cpu 2>&1 | grep -E " library " | tail -1
  for round in 1 2; do
    echo "-- conv bands, one process (round $round)"
    $G bench conv -s 30720x17280 --gather none --placement resident --gpus 4 --reps 20 --json $R/multi_conv_$round.json > $R/multi_conv_$round.txt 2>&1; rows $R/multi_conv_$round.txt
    echo "-- conv bands, MPI (round $round)"
    timeout 200 mpirun -np 4 $G bench conv -s 30720x17280 --gather none --placement resident --gpus 4 --reps 20 --json $R/multi_conv_mpi_$round.json > $R/multi_conv_mpi_$round.txt 2>&1; echo "mpirun exit $?"; rows $R/multi_conv_mpi_$round.txt
  done
  echo "-- multi-GPU scan tests"; timeout 220 $T --gtest_filter='MultiGpu.Scan*:MultiGpuLoopback.Scan*' --gtest_brief=1 2>&1 | tail -4
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
