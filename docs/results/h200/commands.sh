# One call on one H200, build of 1127edc carried (scripts/pack_device.sh ci cli, and the GPU tests binary packed alone); build/callAZ.sh, not kept; its text:
#!/usr/bin/env bash
# One H200 (session 27): scan rungs 8-9 and the library as landed; segmented scans; scan tests and sanitizer.
set -u
tar xJf build/ci-device.tar.xz -C build; tar xJf build/tests-only.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
show() { grep -E "^ +[0-9v]|^scan|^segmented|wrong|FAIL|rror" "$1" | sed -E 's/ +e2e ms.*//; s/block=256.*//' ; }
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: scan ladder 2^28 by type, segmented ladder, scan GPU tests, gpulab sanitize scan segmented_scan"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
  $G bench scan -n 2^28 -t int32,float32,float64,int8,int16 --variants 5,6,7,8,9,library,vendor --reps 30 --no-cpu --json $R/scan_ladder.json --md $R/scan_ladder.md > $R/scan_ladder.txt 2>&1; show $R/scan_ladder.txt
  $G bench scan -n 2^20,2^24,2^26,2^30 -t int32,float64,int8 --variants library,vendor --reps 30 --no-cpu --no-ceilings --json $R/scan_sizes.json > $R/scan_sizes.txt 2>&1; show $R/scan_sizes.txt
  $G bench segmented_scan -n 2^28 -t int32,float32,float64 --segments 1,32,1000,2^20 --reps 20 --no-cpu --json $R/segmented.json --md $R/segmented.md > $R/segmented.txt 2>&1; show $R/segmented.txt
  echo "-- GPU tests *Scan*"; timeout 240 $T --gtest_filter='*Scan*' --gtest_output="json:$R/gpu_tests.json" --gtest_brief=1 2>&1 | tail -4
  echo "-- sanitize"; timeout 150 $G sanitize scan segmented_scan --tools memcheck,racecheck,synccheck --md $R/sanitize.md > $R/sanitize.txt 2>&1; echo "sanitize exit $?"; tail -30 $R/sanitize.txt
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
