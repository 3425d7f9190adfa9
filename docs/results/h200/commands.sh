# One call on one H200, build of 7bc1434 carried (scripts/pack_device.sh ci python: the CLI and the installed library); build/callBC.sh, not kept; its text:
#!/usr/bin/env bash
# One H200 (session 27): scan rung 9 with evict-first stores against without (branch exp/staged-evict);
# the Python module built against this library, its tests (the scans' torch and cupy routes among them).
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
show() { grep -E "^ +[0-9v]+  [a-z]|^scan|wrong|FAIL|rror" "$1" | sed -E 's/ +e2e ms.*//; s/block=256.*//' ; }
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: scan rung 9 with and without evict-first stores, python build and tests"
  for round in 1 2; do
    $G bench scan -n 2^26,2^28 -t float64,int8 --variants 8,9,staged_prefetched_plain,library,vendor --reps 30 --no-cpu --no-ceilings --json $R/scan_$round.json > $R/scan_$round.txt 2>&1; show $R/scan_$round.txt
  done
  echo "== $(date -u +%T) python"
  pyroot=/tmp/gpulab_python; rm -rf $pyroot && python3 -m pip install -q --no-build-isolation --no-deps --target $pyroot -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$B/prefix" . > $R/python_build.txt 2>&1; echo "python build exit code: $?"; tail -5 $R/python_build.txt
  export PYTHONPATH=$pyroot XLA_PYTHON_CLIENT_PREALLOCATE=false
  timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests --junitxml=$R/python_tests.xml 2>&1 | tail -12; echo "python tests exit code: ${PIPESTATUS[0]}"
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
