# One call on one H200, build of 265e2cc carried (scripts/pack_device.sh ci cli); build/callBD.sh, not kept; its text:
#!/usr/bin/env bash
# One H200 (session 27): the library scan against what users call instead (torch.cumsum, cupy.cumsum;
# PyTorch's segmented composition), in one call, with the library as landed (265e2cc).
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: scan library and CUB, torch.cumsum and cupy.cumsum at 2^28; segmented against PyTorch"
  $G bench scan -n 2^28 -t int32,float32,float64 --variants library,vendor --reps 30 --no-cpu --json $R/scan.json > $R/scan.txt 2>&1; grep -E "^scan|library|cub::" $R/scan.txt | grep -vE "^  (10|vendor) " | sed -E 's/ +e2e ms.*//; s/block=256.*//'
  timeout 120 python3 src/scan/peers.py --n 2^28 --json $R/peers.json 2>&1 | tail -12
  $G bench segmented_scan -n 2^24 -t float32 --segments 32 --variants library,vendor --reps 20 --no-cpu --no-ceilings > $R/seg.txt 2>&1; grep -E "library  |cub::" $R/seg.txt | grep -vE "^  [0-9v]" | sed -E 's/ +e2e ms.*//'
  timeout 120 python3 src/scan/peers_segmented.py --n 2^24 --json $R/peers_segmented.json 2>&1 | tail -6
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
