# Two calls on one H200, build of 8f409bb carried (scripts/pack_device.sh ci cli, and the GPU tests binary packed alone); build/callAX.sh then build/callAY.sh, not kept; their text:
#!/usr/bin/env bash
# One H200 (session 27): scan and segmented scan from a prefetched guess (branch scan-prefetch-guess).
set -u
tar xJf build/ci-device.tar.xz -C build; tar xJf build/tests-only.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
show() { grep -vE "^  [0-9v][a-z0-9]* [a-zA-Z_:]+$|^shape|CPU reference" "$1" | grep -E "^ +[0-9v]|^scan|^segmented|ok|wrong|FAIL|rror" | sed -E 's/ +e2e ms.*//' ; }
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: scan start modes by type and size, segmented, ncu, scan GPU tests"
  for t in int32 float32 float64 int8 int16; do
    $G bench scan -n 2^28 -t $t --variants 5,6,7,prefetched_guess,after_ticket,staged_prefetched,library,vendor --reps 30 --no-cpu --json $R/scan_$t.json > $R/scan_$t.txt 2>&1; show $R/scan_$t.txt
  done
  $G bench scan -n 2^20,2^22,2^24,2^26 -t int32,float64 --variants 5,7,prefetched_guess,after_ticket,library,vendor --reps 50 --no-cpu --no-ceilings --json $R/scan_sizes.json > $R/scan_sizes.txt 2>&1; show $R/scan_sizes.txt
  $G bench segmented_scan -n 2^28 -t int32,float64 --segments 32,1000,2^20 --variants two_blocks,prefetched_guess,by_key,vendor --reps 20 --no-cpu --json $R/seg.json > $R/seg.txt 2>&1; show $R/seg.txt
  echo "-- by key, prefetched"
  GPULAB_EXPERIMENT_BY_KEY_PREFETCH=1 $G bench segmented_scan -n 2^28 -t int32,float64 --segments 32,1000,2^20 --variants by_key,vendor --reps 20 --no-cpu --no-ceilings --json $R/seg_key_prefetch.json > $R/seg_key_prefetch.txt 2>&1; show $R/seg_key_prefetch.txt
  for v in prefetched_guess after_ticket staged_prefetched staged; do
    echo "-- ncu $v"
    timeout 90 ncu --metrics gpu__time_duration.sum,smsp__sass_inst_executed_op_global_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      --launch-count 1 $G run scan -n 2^28 -t int32 --variant $v --reps 1 2>&1 | grep -E "duration|global_ld|op_read|bytes_read|throughput" | tee $R/ncu_$v.txt
  done
  echo "-- tests"; timeout 200 $T --gtest_filter='ScanLibrary.*:SegmentedScan.*' --gtest_brief=1 2>&1 | tail -4
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
#!/usr/bin/env bash
# One H200 (session 27): where the staged tile with a prefetched guess beats registers, by size and type (8f409bb).
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
show() { grep -E "^ +[0-9v]|^scan|wrong|FAIL|rror" "$1" | sed -E 's/ +e2e ms.*//; s/block=256.*//' ; }
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: scan staged_prefetched against prefetched_guess by size and type"
  for t in float64 int8 int16 int32 float32; do
    $G bench scan -n 2^23,2^24,2^25,2^26,2^27,2^29 -t $t --variants 5,prefetched_guess,staged_prefetched --reps 40 --no-cpu --no-ceilings --json $R/sizes_$t.json > $R/sizes_$t.txt 2>&1; show $R/sizes_$t.txt
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
