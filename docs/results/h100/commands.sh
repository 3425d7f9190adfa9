# The call of this record, on the GPU machine with the build of f60c11d carried (build/device.tar.xz)
# and this script, run as: bash build/call_s1.sh
set -u
mkdir -p "$OUT/w" build/n build/o
tar xJf build/device.tar.xz -C build/n; tar xJf build/device_87de.tar.xz -C build/o
{
echo "== $(date -u +%FT%TZ) commit $(cat build/n/device/COMMIT), parts: build/call_s1.sh (scan rung 8, two-part tiles, three forms), beside the build of $(cat build/o/device/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  for b in o n; do
    B=build/$b/device; c=$(cut -c1-7 $B/COMMIT)
    V=evict_first_stores,library,vendor
    [ $b = n ] && V=evict_first_stores,two_part_tiles,two_part_parked,two_part_2,library,vendor
    for t in int32 float32 int8 int16; do
      timeout 120 $B/gpulab bench scan -t $t -n 2^20,2^24,2^28 --variants $V --no-cpu --reps 20 --json $OUT/w/scan_${t}_${c}_$i.json > /dev/null 2>&1; echo "$c $t $i exit $?"
    done
  done
done
timeout 300 build/n/device/tests/gpulab_gpu_tests --gtest_filter='*Scan*' --gtest_brief=1 2>&1 | tail -3
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck build/n/device/tests/gpulab_gpu_tests --gtest_filter='*small_*two_part*' --gtest_brief=1 2>&1 | tail -3
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool racecheck build/n/device/tests/gpulab_gpu_tests --gtest_filter='*small_*two_part*' --gtest_brief=1 2>&1 | tail -3
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
