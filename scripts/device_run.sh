#!/usr/bin/env bash
# One call on a GPU machine: unpack the build, run gpulab's commands, pack the results. What runs for
# a problem is the problem's own `showcase()` (benches, profiles, peers, multi-GPU benches).
#   scripts/device_run.sh [PROBLEM...] [notests|tests] [sanitize[-tests]] [suite] [python] [fuzz] [profiles] [multi[-mpi|-weak|-more|-tests]]
# No argument: GPU tests, every problem's showcase, Python, suite. PROBLEM: its showcase (runs,
# profiles, peers). tests (unless notests, always): the GPU tests, each sanitizer tool's known-wrong
# rung ($GPU_TESTS: a gtest filter, only these); sanitize-tests: the four tools over the small tests
# ($SANITIZER_TOOLS picks some, $SANITIZER_TESTS other tests: on the H100 memcheck and part of
# racecheck took 225 s); sanitize: `gpulab sanitize`. profiles:
# every problem's profiles alone. fuzz: the Python fuzz run ($FUZZ_CALLS calls, default 100000; seed
# $FUZZ_SEED) against independent references, its counts in fuzz.json, then the C++ API's
# ($CPP_FUZZ_CALLS, default 20000; fuzz_cpp.json). multi*: every problem's benches over this host's GPUs from one
# process, one per GPU (MPI), weakly scaled, at more sizes ($MULTI_PROBLEMS: only these; multi: also the
# errors that must end every rank); multi-tests: the multi-GPU tests ($MULTI_TESTS, a gtest filter). A call's parts must fit
# its 10 minutes (H100: tests 7 min, suite 5, sanitize 4; two H200s: multi-GPU tests 5, multi parts 4-6).
# Writes $OUT/log.txt and $OUT/results.tgz; scripts/record_run.py files them as a record.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-device-out}
res="$OUT/results"
mkdir -p "$res"
bin=${GPULAB_BIN:-build/ci}
exec > >(tee "$OUT/log.txt") 2>&1
if [ ! -x "$bin/gpulab" ] && [ -f "$bin.tar.xz" ]; then tar xJf "$bin.tar.xz" -C "$(dirname "$bin")"; fi
[ -x "$bin/gpulab" ] || { PATH="/usr/local/cuda/bin:$PATH" cmake --preset ci && cmake --build --preset ci; } || exit 1
# The build machine's OpenMP runtime travels with the build, for GPU machines that lack one.
ldconfig -p | grep -q libgomp.so.1 || [ ! -d "$bin/devlibs" ] || export LD_LIBRARY_PATH="$PWD/$bin/devlibs:${LD_LIBRARY_PATH:-}"
# NVLink multicast stays off: programs that use it can take a shared host's GPUs out of service.
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
problems=() parts=() tests=yes
for a in "$@"; do
  case "$a" in
    notests) tests=no ;; tests) ;;
    sanitize | sanitize-tests | suite | python | fuzz | profiles | multi | multi-mpi | multi-weak | multi-more | multi-tests) parts+=("$a") ;;
    *) problems+=("$a") ;;
  esac
done
[ $# -eq 0 ] && parts=(suite python)
has() { printf '%s\n' "${parts[@]}" | grep -qx "$1"; }
gpulab() { "$bin/gpulab" "$@"; }
echo "== $(date -u +%FT%TZ) commit $(cat "$bin/COMMIT" 2>/dev/null || echo unknown), parts: ${*:-all}${GPULAB_TREAT_AS:+ (the GPU treated as $GPULAB_TREAT_AS)}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
gpulab info
# TOOL FILTER [gtest options]: GPU tests under one compute-sanitizer tool (errors: exit 99, the first 10 shown).
tests_bin=$bin/tests/gpulab_gpu_tests
# A part of a build (scripts/pack_device.sh PRESET cli|tests|python) may lack the GPU tests or the
# installed library.
if [ ! -x "$tests_bin" ] && { [ "$tests" = yes ] || has sanitize-tests || has multi-tests; }; then
  echo "device_run: $tests_bin is not in this build (pack_device.sh PRESET cli or python?): pass notests, or pack the tests"; exit 2
fi
if [ ! -d "$bin/prefix" ] && { has python || has fuzz; }; then
  echo "device_run: $bin/prefix (the installed library) is not in this build (pack_device.sh PRESET cli or tests?): the Python parts need it (PRESET python)"; exit 2
fi
under() { compute-sanitizer --tool "$1" --error-exitcode 99 --print-limit 10 "$tests_bin" --gtest_filter="$2" --gtest_brief "${@:3}"; }
if [ "$tests" = yes ]; then
  echo "== $(date -u +%T) GPU tests (${GPU_TESTS:-every problem})"
  "$tests_bin" --gtest_filter="${GPU_TESTS:-*}" --gtest_output="json:$res/gpu_tests.json" --gtest_brief=1; echo "gpu tests exit code: $?"
  for tool in memcheck racecheck synccheck initcheck; do  # must be caught: the output SanitizerPipeline reads
    echo "-- $tool on KnownWrongSanitizer.DISABLED_$tool (rung 1 must be reported, rung 0 not)"
    under "$tool" "KnownWrongSanitizer.DISABLED_$tool" --gtest_also_run_disabled_tests; echo "$tool known-wrong exit code: $?"
  done > "$res/sanitizer_known_wrong.txt" 2>&1
  grep -E "exit code" "$res/sanitizer_known_wrong.txt"
fi
if has sanitize-tests; then
  echo "== $(date -u +%T) compute-sanitizer (the tests named small_*, the known-wrong rungs, the library's contracts)"
  for tool in ${SANITIZER_TOOLS:-memcheck racecheck synccheck initcheck}; do
    echo "-- $tool"; under "$tool" "${SANITIZER_TESTS:-*small_*:KnownWrong.*:*Refuses*}"; echo "$tool exit code: $?"
  done > "$res/sanitizer.txt" 2>&1
  grep -E "exit code|ERROR SUMMARY" "$res/sanitizer.txt" | sort | uniq -c | head -20
fi
if [ $# -eq 0 ] || [ ${#problems[@]} -gt 0 ]; then
  echo "== $(date -u +%T) the problems' recorded runs, profiles and peers (gpulab showcase)"
  gpulab showcase --out "$res" "${problems[@]}"; echo "showcase exit code: $?"
fi
if has profiles; then gpulab showcase --out "$res" --parts profiles; echo "profiles exit code: $?"; fi
if has sanitize; then
  echo "== $(date -u +%T) gpulab sanitize: every rung of every problem at its small edge sizes under the four tools"
  pages=(--json "$res/sanitize.json" --html "$res/sanitize.html"); [ -n "${GPULAB_TREAT_AS:-}" ] && pages=()  # (kept small: see the suite)
  gpulab sanitize --md "$res/sanitize.md" "${pages[@]}" > "$res/sanitize.txt" 2>&1
  echo "sanitize exit code: $?"
  grep -E " pass, |FAIL" "$res/sanitize.txt" | head -60
fi
if has multi-tests; then
  echo "== $(date -u +%T) the multi-GPU tests over this host's GPUs, and the captures of several streams"
  "$tests_bin" --gtest_filter="${MULTI_TESTS:-MultiGpu*:StreamCaptures.*}" --gtest_output="json:$res/multi_gpu_tests.json"
  echo "multi gpu tests exit code: $?"
fi
gpus=$(nvidia-smi -L | wc -l)
for part in multi multi-mpi multi-weak multi-more; do
  has "$part" || continue
  nvidia-smi topo -m > "$res/topo.txt" 2>&1
  echo "== $(date -u +%T) $part: every problem's benches over $gpus GPU(s)"
  [ "$part" = multi ] && { gpulab ceilings --gpus "$gpus" --json "$res/ceilings_gpus.json" --md "$res/ceilings_gpus.md" | tail -25; echo "ceilings --gpus exit code: ${PIPESTATUS[0]}"; }
  gpulab showcase --out "$res" ${MULTI_PROBLEMS:-} --parts "$part"
  echo "$part exit code: $?"
done
if has multi; then
  echo "== $(date -u +%T) errors, each must end every rank with a message and a non-zero exit code, never hang"
  timeout 120 "$bin/gpulab" bench reduce --gpus $((gpus + 1)) -n 2^20; echo "more GPUs than exist: exit code $?"
  timeout 120 mpirun -np "$gpus" "$bin/gpulab" bench reduce --gpus $((gpus + 1)) -n 2^20; echo "processes, --gpus differ: exit code $?"
  timeout 120 mpirun -np $((gpus + 1)) "$bin/gpulab" bench reduce --gpus $((gpus + 1)) -n 2^20; echo "two ranks, one GPU: exit code $?"
fi
if has python || has fuzz; then
  echo "== $(date -u +%T) python: the module built against this build's installed library"
  pyroot=/tmp/gpulab_python_$(basename "$bin")  # one per build: calls of several builds may run side by side
  rm -rf "$pyroot" && python3 -m pip install -q --no-build-isolation --no-deps --target "$pyroot" -Ccmake.source-dir=python \
    -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$bin/prefix" . > "$res/python_build.txt" 2>&1
  echo "python build exit code: $?"
  # JAX would otherwise take 75% of the GPU's memory at its first array, beside PyTorch's.
  export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH="$pyroot"
fi
if has fuzz; then
  echo "== $(date -u +%T) fuzz: random shapes, layouts, dtypes, routes and values against independent references"
  python3 python/tests/fuzz.py --calls "${FUZZ_CALLS:-100000}" --seed "${FUZZ_SEED:-1}" --json "$res/fuzz.json" 2>&1 | tail -30
  echo "fuzz exit code: ${PIPESTATUS[0]}"
  echo "-- the C++ API: ${CPP_FUZZ_CALLS:-20000} calls (tests/test_fuzz_gpu.cpp)"
  GPULAB_FUZZ_CALLS="${CPP_FUZZ_CALLS:-20000}" GPULAB_FUZZ_SEED="${FUZZ_SEED:-61}" "$tests_bin" --gtest_filter='Fuzz.*' \
    --gtest_output="json:$res/fuzz_cpp.json" --gtest_brief=1 2>&1 | tail -30
  echo "c++ fuzz exit code: ${PIPESTATUS[0]}"
fi
if has python; then
  echo "== $(date -u +%T) python: its tests, the CMake package, peers"
  python3 -m pytest -q -rs -p no:cacheprovider python/tests --junitxml="$res/python_tests.xml" 2>&1 | tail -15
  echo "python tests exit code: ${PIPESTATUS[0]}"
  consumer=/tmp/consumer_$(basename "$bin")
  cmake -S examples/consumer -B "$consumer" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$bin/prefix" > /dev/null &&
    cmake --build "$consumer" > /dev/null && "$consumer/gpulab_consumer"; echo "consumer exit code: $?"
  "$consumer/gpulab_consumer_nccl"; echo "consumer (gpulab::nccl, every GPU) exit code: $?"
  if [ -z "${GPULAB_TREAT_AS:-}" ]; then  # times: not of a GPU treated as another
    python3 scripts/peers_python.py --json "$res/peers_python.json" || echo "peers exit code: $?"
    python3 scripts/python_call_cost.py > "$res/call_cost.txt" 2>&1 || echo "call cost exit code: $?"
  fi
fi
if has suite && [ -n "${GPULAB_TREAT_AS:-}" ]; then
  # Treated as an older family the times are this GPU's, not that family's: what counts is that every
  # check passes. The report is summed up (scripts/suite_summary.py) and not kept.
  echo "== $(date -u +%T) gpulab suite, the GPU treated as $GPULAB_TREAT_AS (its checks; the times are this GPU's)"
  gpulab suite --json "$res/suite_treated.json" --no-page > /dev/null; echo "suite exit code: $?"
  python3 scripts/suite_summary.py "$res/suite_treated.json" > "$res/suite_summary.txt"; echo "suite summary exit code: $?"
  head -3 "$res/suite_summary.txt"; rm -f "$res/suite_treated.json"
elif has suite; then
  echo "== $(date -u +%T) the same GPU twice: bench reduce, again, then compare (a repeat moves nothing beyond its noise)"
  for k in 1 2; do gpulab bench reduce --json "$res/repeat$k.json" > /dev/null 2>&1 || echo "repeat $k exit code: $?"; done
  gpulab compare "$res/repeat1.json" "$res/repeat2.json" --md "$res/repeat_compare.md" | tail -1
  echo "== $(date -u +%T) gpulab suite (ceilings + every ladder with its defaults; its page beside its JSON)"
  gpulab suite --json "$res/suite.json" > /dev/null; echo "suite exit code: $?"
fi
# One page of the harness's other reports (the suite has its page; the peers' JSON is of another shape).
reports=(); for f in "$res"/*.json; do
  [[ $f != */suite.json && $f != */repeat?.json ]] && grep -q '"gpulab_version"' "$f" 2> /dev/null && reports+=("$f")
done
[ ${#reports[@]} -gt 0 ] && { gpulab report "${reports[@]}" -o "$res/showcase.html"; echo "report exit code: $?"; }
tar czf "$OUT/results.tgz" -C "$OUT" results && rm -rf "$res"
echo "== done $(date -u +%FT%TZ)"
