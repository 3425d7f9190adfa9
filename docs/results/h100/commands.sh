# The call of this record, on the GPU machine with the build of 223ac23 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w8.sh
set -u
B=build/device
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_e1a4cb7.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w8.sh (add_slices A/B against $(cat build/old/device/COMMIT), split-K GEMV forced, scan int8 sizes)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench sgemm -s 64x64x2^20,1x4096x4096,8x4096x4096,4x4096x4096,1x16384x16384,2x8192x8192 --variants library,vendor --no-cpu --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
for i in 1 2; do
  timeout 100 $B/gpulab bench sgemm -s 1x4096x4096,8x4096x4096,4x4096x4096,1x16384x16384,2x8192x8192 --variants library,gemv_split32,gemv_split64,gemv_split128,vendor --no-cpu --reps 20 --json $OUT/w/split_$i.json --md $OUT/w/split_$i.md > /dev/null 2>&1; echo "split $i exit $?"
done
timeout 100 $B/gpulab run sgemm -s 64x64x2^20 --variant library > $OUT/w/run_64x64x2p20.txt 2>&1; echo "run exit $?"
timeout 100 build/old/device/gpulab run sgemm -s 64x64x2^20 --variant library > $OUT/w/run_64x64x2p20_old.txt 2>&1; echo "run old exit $?"
grep -iE "add_slices|µs|ms" $OUT/w/run_64x64x2p20*.txt | head -20
timeout 150 $B/gpulab bench scan -t int8 -n 2^24,2^25,2^26,2^27 --variants decoupled_lookback,staged,evict_first_stores,library,vendor --no-cpu --reps 20 --json $OUT/w/scan_int8.json --md $OUT/w/scan_int8.md > /dev/null 2>&1; echo "scan int8 exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
