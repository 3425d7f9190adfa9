#!/usr/bin/env bash
# One call on a GPU machine: GPU tests (among them the sanitizer pipeline on the known-wrong rungs,
# which each tool must catch), compute-sanitizer on the tests' small sizes, and every problem's
# recorded runs (`gpulab showcase`: each ladder and the seeds' own tables, the problems taken from
# the registry), then `gpulab suite`.
#   scripts/device_run.sh [PROBLEM...] [tests] [python] [suite] [sanitize] [profile]
#                         [multi] [multi-more] [multi-mpi] [multi-weak] [multi-tests] [notests]
#   (no argument: every problem, the Python package and the suite; tests: the GPU tests and the
#   sanitizers alone; notests: skip them, for a second call of one session; python: build the Python
#   module there, run its tests and time it against PyTorch; sanitize: `gpulab sanitize`, every rung
#   of every problem under the four tools; profile: `gpulab profile` of every problem at one size,
#   with one page of them all; multi: the six problems over every GPU from one process, resident and
#   from host memory, and the errors that must end every rank; multi-more: scan's kinds and types,
#   sgemm's awkward shapes and conv's sizes over every GPU; multi-mpi: the six launched by MPI, one
#   process per GPU; multi-weak: weak scaling, about 8 GB per GPU, where there are several;
#   multi-tests: the tests over the host's GPUs (MultiGpu.*, StreamCaptures.*, or $MULTI_TESTS, a
#   gtest filter; the loopback ranks run with `tests`). On two H200s `multi-tests multi` fills one
#   call (8 min), `multi-mpi` 5.5 min and `multi-weak` 3.5 min: give them separate calls. Every multi-GPU bench writes a
#   gpulab report: the page at the end shows their scaling)
# Writes $OUT/log.txt (everything printed) and $OUT/results.tgz (reports as JSON/Markdown/CSV,
# the GPU tests' JSON, the sanitizer's output).
# Usually the build is made on a machine with the Debian packages (scripts/test.sh, which also
# packs the binaries in build/device.tar.xz) and travels with the call (GPULAB_BIN=build/device);
# where no build came along, it builds here.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-device-out}
mkdir -p "$OUT/results"
res="$OUT/results"
bin=${GPULAB_BIN:-build/release}
exec > >(tee "$OUT/log.txt") 2>&1
# A packed build (scripts/test.sh makes build/device.tar.xz) is unpacked where it came with the call.
if [ ! -x "$bin/gpulab" ] && [ -f "$bin.tar.xz" ]; then tar xJf "$bin.tar.xz" -C "$(dirname "$bin")"; fi
if [ ! -x "$bin/gpulab" ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
  cmake --preset release && cmake --build --preset release || { echo "build failed"; exit 1; }
fi
# The build machine's OpenMP runtime travels with the build in case the GPU machine lacks one.
if ! ldconfig -p | grep -q libgomp.so.1 && [ -d "$bin/devlibs" ]; then
  export LD_LIBRARY_PATH="$PWD/$bin/devlibs:${LD_LIBRARY_PATH:-}"
fi
problems=()
python=no
suite=no
tests=yes
sanitize=no
profile=no
multi=no
multi_more=no
multi_mpi=no
multi_weak=no
multi_tests=no
for a in "$@"; do
  case "$a" in
    suite) suite=yes ;; notests) tests=no ;; tests) ;; python) python=yes ;; sanitize) sanitize=yes ;; profile) profile=yes ;; multi) multi=yes ;;
    multi-more) multi_more=yes ;; multi-mpi) multi_mpi=yes ;; multi-weak) multi_weak=yes ;; multi-tests) multi_tests=yes ;;
    *) problems+=("$a") ;;
  esac
done
[ $# -eq 0 ] && suite=yes && python=yes
echo "== $(date -u +%FT%TZ) commit $(cat "$bin/COMMIT" 2>/dev/null || echo unknown), parts: ${*:-all}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
"$bin/gpulab" info

if [ "$tests" = yes ]; then
echo "== GPU tests (every problem)"
"$bin/tests/gpulab_gpu_tests" --gtest_output="json:$res/gpu_tests.json" --gtest_brief=1
echo "gpu tests exit code: $?"

echo "== each tool on its known-wrong rung (must be caught: exit code 99), the output SanitizerPipeline reads"
{
  for tool in memcheck racecheck synccheck initcheck; do
    echo "-- $tool on KnownWrongSanitizer.DISABLED_$tool (rung 1 must be reported, rung 0 not)"
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/tests/gpulab_gpu_tests" \
      --gtest_also_run_disabled_tests --gtest_filter="KnownWrongSanitizer.DISABLED_$tool" --gtest_brief=1
    echo "$tool known-wrong exit code: $?"
  done
} > "$res/sanitizer_known_wrong.txt" 2>&1
grep -E "exit code" "$res/sanitizer_known_wrong.txt"
echo "== compute-sanitizer (the tests named small_*, the known-wrong rungs, the library's contracts)"
{
  for tool in memcheck racecheck synccheck initcheck; do
    echo "-- $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/tests/gpulab_gpu_tests" \
      --gtest_filter='*small_*:KnownWrong.*:*Refuses*' --gtest_brief=1
    echo "$tool exit code: $?"
  done
} > "$res/sanitizer.txt" 2>&1
grep -E "exit code|ERROR SUMMARY" "$res/sanitizer.txt" | sort | uniq -c | head -20
fi
if [ "$sanitize" = yes ]; then
  echo "== gpulab sanitize: every rung of every problem at its small edge sizes under the four tools"
  start=$(date +%s)
  "$bin/gpulab" sanitize --json "$res/sanitize.json" --md "$res/sanitize.md" --html "$res/sanitize.html" \
    > "$res/sanitize.txt" 2>&1
  echo "sanitize exit code: $? ($(( $(date +%s) - start )) s)"
  grep -E " pass, |FAIL" "$res/sanitize.txt" | head -60
fi
if [ "$profile" = yes ]; then
  echo "== gpulab profile: each problem at one size, every rung once under Nsight Compute, then timed"
  while read -r problem options; do
    start=$(date +%s)
    # shellcheck disable=SC2086  # the options are words
    "$bin/gpulab" profile "$problem" $options --json "$res/profile_$problem.json" --md "$res/profile_$problem.md" \
      > "$res/profile_$problem.txt" 2>&1
    echo "profile $problem exit code: $? ($(( $(date +%s) - start )) s)"
  done << 'SIZES'
reduce -n 2^24 -t float32
scan -n 2^24 -t float32
histogram -n 2^24 -m 8,256,2^20 -d uniform
atax -s 4096x4096
transpose -s 4096x4096 --layout packed
add -s 4096x4096 --layout packed
triangle -s 4096x4096 --layout packed
sgemm -s 2048
conv -s 3840x2160
SIZES
  "$bin/gpulab" report "$res"/profile_*.json -o "$res/profile.html" && echo "profile page: $res/profile.html"
  tail -40 "$res/profile_reduce.txt"
fi

# No problem named but other parts asked for (python, suite, sanitize, profile): no ladders.
only_parts=no; [ ${#problems[@]} -eq 0 ] && [ $# -gt 0 ] && only_parts=yes
if [ "$only_parts" = no ]; then
  echo "== every problem's recorded runs (gpulab showcase)"
  "$bin/gpulab" showcase --out "$res" "${problems[@]}"
  echo "showcase exit code: $?"
fi
wants() { [ "$only_parts" = no ] && { [ ${#problems[@]} -eq 0 ] || printf '%s\n' "${problems[@]}" | grep -qx "$1"; }; }
# profile FILE KERNELS METRICS COMMAND...: the first launch of a kernel whose name matches KERNELS
# (a regex) in COMMAND under Nsight Compute, METRICS to $res/FILE.txt; prints the kernel's line and
# its metrics. Says so once and does nothing where ncu is absent.
profile() {
  local file=$1 kernels=$2 metrics=$3
  shift 3
  if ! command -v ncu > /dev/null; then echo "ncu not found: no counters for $file"; return; fi
  ncu --clock-control none --launch-count 1 -k regex:"$kernels" --metrics "$metrics" "$@" > "$res/$file.txt" 2>&1
  echo "ncu $file exit code: $?"
  grep -E "Context [0-9]+, Stream|__" "$res/$file.txt" | grep -v "==PROF==" | sed 's/^ */  /'
}
bank_conflicts=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
if wants scan; then
  echo "== scan: the manual's kernel without and with padding under Nsight Compute (shared-memory bank conflicts)"
  for rung in blelloch blelloch_padded; do
    profile "ncu_scan_$rung" scan_blelloch \
      "$bank_conflicts,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,gpu__time_duration.sum" \
      "$bin/gpulab" run scan --variant "$rung" -n 2^24 -t float32 --reps 1
  done
  echo "== scan: what users call instead (torch.cumsum, cupy.cumsum), the same sizes"
  python3 scripts/peers_scan.py --n 2^28 --json "$res/peers_scan.json" || echo "peers exit code: $?"
fi
if wants transpose || wants add || wants triangle; then
  echo "== transpose: the 32x32 tile without and with padding, and the 64x64 swizzled tile, under Nsight Compute"
  for rung in tile tile_padded tile_vector_4x4; do
    profile "ncu_transpose_$rung" transpose_tile "$bank_conflicts,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum" \
      "$bin/gpulab" run transpose --variant "$rung" -s 16384x16384 --layout packed --reps 1
  done
  echo "== transpose of packed odd widths: rung 6 (4-byte stores) and rung 7 (b's rows realigned) under Nsight Compute"
  for rung in tile_vector_4x4 tile_realigned; do
    profile "ncu_transpose_odd_$rung" 'transpose_tiles|transpose_realigned' \
      "$bank_conflicts,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum,gpu__time_duration.sum" \
      "$bin/gpulab" run transpose --variant "$rung" -s 16383x16385 --layout packed --reps 1
  done
  echo "== matrices: what users call instead (PyTorch), the same shapes"
  python3 scripts/peers_matrix.py --json "$res/peers_matrix.json" || echo "peers exit code: $?"
fi
if wants conv; then
  echo "== conv: the lanes (the library at 8K), the one-channel window and rungs 1-2 under Nsight Compute (8K sharpen)"
  "$bin/gpulab" conv gen 7680 4320 -o /tmp/gpulab_8k.ppm > /dev/null
  for rung in lanes sliding_window thread_per_pixel constant_filter vendor; do
    profile "ncu_conv_$rung" 'lanes|sliding_window|thread_per_pixel|constant_filter|ForEach' \
      gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct \
      "$bin/gpulab" conv run /tmp/gpulab_8k.ppm -o /tmp/gpulab_8k_out.ppm --variant "$rung" --reps 1
  done
  echo "== conv: a same-size copy (the size-matched ceiling) and PyTorch's pipeline, the same sizes"
  python3 scripts/peers_conv.py --json "$res/peers_conv.json" || echo "peers exit code: $?"
fi
if wants sgemm; then
  echo "== sgemm: the pipelined and fragments rungs, cuBLAS's kernel and 3xTF32 at 4096^3 under Nsight Compute (with the stall reasons)"
  for rung in pipelined fragments vendor tc_3xtf32; do
    profile "ncu_sgemm_$rung" 'warp_tiles|big_tiles|gemm|tf32x3' \
      regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio',sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
      "$bin/gpulab" run sgemm --variant "$rung" -s 4096 --reps 1
  done
  echo "== sgemm: what users call instead (torch.mm, TF32 off and on), the same shapes"
  python3 scripts/peers_sgemm.py --json "$res/peers_sgemm.json" || echo "peers exit code: $?"
fi
if [ "$multi$multi_more$multi_mpi$multi_weak$multi_tests" != nonononono ]; then
  # NVLink multicast stays off: programs that use it can take a shared host's GPUs out of service.
  export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  gpus=$(nvidia-smi -L | wc -l)
  nvidia-smi topo -m > "$res/topo.txt" 2>&1; cat "$res/topo.txt"
  # NAME [mpi] OPTIONS...: `gpulab bench OPTIONS --gpus <every GPU>`, one process (or one per GPU under
  # mpirun), its report (JSON, Markdown) and table; 5 minutes at most, so that a hang costs one
  # bench and not the call (timeout's exit code 124). Large sizes take --reps 10: a call holds
  # 10 minutes.
  multi_bench() {
    local name=$1 launcher=(); shift
    if [ "$1" = mpi ]; then launcher=(mpirun -np "$gpus"); shift; fi
    local start; start=$(date +%s)
    timeout 300 "${launcher[@]}" "$bin/gpulab" bench "$@" --gpus "$gpus" --json "$res/multi_$name.json" \
      --md "$res/multi_$name.md" > "$res/multi_$name.txt" 2>&1
    echo "multi $name exit code: $? ($(( $(date +%s) - start )) s)"; cat "$res/multi_$name.txt"
  }
fi
if [ "$multi_tests" = yes ]; then
  echo "== $(date -u +%T) the multi-GPU tests over this host's GPUs, and the captures of several streams"
  "$bin/tests/gpulab_gpu_tests" --gtest_filter="${MULTI_TESTS:-MultiGpu.*:StreamCaptures.*}" \
    --gtest_output="json:$res/multi_gpu_tests.json" --gtest_brief=1
  echo "multi gpu tests exit code: $?"
fi
if [ "$multi" = yes ]; then
  echo "== $(date -u +%T) one process over $gpus GPU(s): the six problems, 8 GB in all at the large sizes, resident and from host memory"
  multi_bench reduce_small reduce -n 8,2^20 -t float32
  multi_bench reduce reduce -n 2^31 -t float32 --reps 10
  multi_bench histogram histogram -n 2^20,2^31 -m 256,2^20 -d uniform --reps 10
  multi_bench atax atax -s 1024x1024,45000x45000 --reps 10
  multi_bench scan scan -n 2^20,2^30 -t float32 --kind inclusive --reps 10
  multi_bench sgemm sgemm -s 4096,16384 --reps 5
  multi_bench conv conv -s 7680x4320,30720x17280 --gather none,all --reps 10
  echo "== $(date -u +%T) errors, each must end every rank with a message and a non-zero exit code, never hang"
  timeout 120 "$bin/gpulab" bench reduce --gpus $((gpus + 1)) -n 2^20 -t float32; echo "more GPUs than exist: exit code $?"
  timeout 120 mpirun -np "$gpus" "$bin/gpulab" bench reduce --gpus $((gpus + 1)) -n 2^20 -t float32
  echo "processes and --gpus disagree: exit code $?"
  timeout 120 mpirun -np $((gpus + 1)) "$bin/gpulab" bench reduce --gpus $((gpus + 1)) -n 2^20 -t float32
  echo "two ranks on one GPU: exit code $?"
fi
if [ "$multi_more" = yes ]; then
  echo "== $(date -u +%T) scan (both kinds, four types), sgemm and conv at more sizes over $gpus GPU(s), resident"
  multi_bench scan_kinds scan -n 2^20,2^28 -t float32,int32,int8,float64 --kind inclusive,exclusive --placement resident --reps 10
  multi_bench sgemm_shapes sgemm -s 4097,5000x3000x700,64x64x2^20 --placement resident
  multi_bench conv_sizes conv -s 1920x1080,3840x2160,15360x8640 --placement resident
fi
if [ "$multi_mpi" = yes ]; then
  echo "== $(date -u +%T) the six problems launched by MPI: one process per GPU, resident and from host memory"
  multi_bench mpi_reduce_small mpi reduce -n 8,2^20 -t float32
  multi_bench mpi_reduce mpi reduce -n 2^31 -t float32 --reps 10
  multi_bench mpi_histogram mpi histogram -n 2^31 -m 256,2^20 -d uniform --reps 10
  multi_bench mpi_atax mpi atax -s 1024x1024,45000x45000 --reps 10
  multi_bench mpi_scan mpi scan -n 2^30 -t float32 --kind inclusive --reps 10
  multi_bench mpi_sgemm mpi sgemm -s 16384 --reps 5
  multi_bench mpi_conv mpi conv -s 30720x17280 --gather none,all --reps 10
fi
if [ "$multi_weak" = yes ]; then
  if [ "$gpus" -gt 1 ]; then
    echo "== $(date -u +%T) weak scaling, about 8 GB per GPU (the one-GPU rows run one GPU's share)"
    multi_bench reduce_weak reduce -n 2^31 -t float32 --weak --reps 10
    # Counts are 32-bit, so all the GPUs' values together stay below 2^32 (2^31 - 1 each on two).
    multi_bench histogram_weak histogram -n $(( gpus > 1 ? 4294967295 / gpus : 2147483648 )) -m 256 -d uniform --weak --reps 10
    multi_bench atax_weak atax -s 45000x45000 --placement resident --weak --reps 10
    multi_bench scan_weak scan -n 2^30 -t float32 --kind inclusive --placement resident --weak --reps 10
    multi_bench sgemm_weak sgemm -s 16384 --placement resident --weak --reps 5
    multi_bench conv_weak conv -s 30720x17280 --gather none --placement resident --weak --reps 10
  else
    echo "== weak scaling: one GPU here, nothing to scale"
  fi
fi
if [ "$python" = yes ]; then
  echo "== python: the module built here against this build's installed library ($bin/prefix), then its tests and its peers"
  pyroot=/tmp/gpulab_python
  rm -rf "$pyroot" && python3 -m pip install -q --no-build-isolation --no-deps --target "$pyroot" -Ccmake.source-dir=python \
    -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$bin/prefix" . > "$res/python_build.txt" 2>&1
  echo "python build exit code: $?"
  # JAX would otherwise take 75% of the GPU's memory at its first array, beside PyTorch's.
  export XLA_PYTHON_CLIENT_PREALLOCATE=false
  PYTHONPATH="$pyroot" python3 -m pytest -q -rs -p no:cacheprovider python/tests --junitxml="$res/python_tests.xml" 2>&1 | tail -15
  echo "python tests exit code: ${PIPESTATUS[0]}"
  echo "== the CMake package: examples/consumer against $bin/prefix, built and run here"
  cmake -S examples/consumer -B /tmp/gpulab_consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$bin/prefix" > /dev/null &&
    cmake --build /tmp/gpulab_consumer > /dev/null && /tmp/gpulab_consumer/gpulab_consumer
  echo "consumer exit code: $?"
  NCCL_NVLS_ENABLE=0 /tmp/gpulab_consumer/gpulab_consumer_nccl
  echo "consumer (gpulab::nccl, every GPU) exit code: $?"
  echo "== python: gpulab's functions against the one-liners they replace, one process"
  PYTHONPATH="$pyroot" python3 scripts/peers_python.py --json "$res/peers_python.json" || echo "peers exit code: $?"
  echo "== python: one call's host time by path and step (call_cost.txt)"
  PYTHONPATH="$pyroot" python3 scripts/python_call_cost.py > "$res/call_cost.txt" 2>&1 || echo "call cost exit code: $?"
fi
# Reports of the harness (the peers' JSON files are of another shape): one page with them all.
reports=(); for f in "$res"/*.json; do grep -q '"gpulab_version"' "$f" 2> /dev/null && reports+=("$f"); done
if [ ${#reports[@]} -gt 0 ]; then
  echo "== one page of this run's reports (gpulab report; charts by matplotlib)"
  "$bin/gpulab" report "${reports[@]}" -o "$res/showcase.html"
  echo "report exit code: $?"
fi
if [ "$suite" = yes ]; then
  echo "== the same GPU twice: bench reduce, again, then compare (a repeat should move nothing beyond its noise)"
  for k in 1 2; do "$bin/gpulab" bench reduce --json "$res/repeat$k.json" > /dev/null 2>&1 || echo "repeat $k exit code: $?"; done
  "$bin/gpulab" compare "$res/repeat1.json" "$res/repeat2.json" --html "$res/repeat_compare.html" | tail -1
  echo "compare exit code: ${PIPESTATUS[0]}"
  echo "== the main job: gpulab suite (ceilings + every ladder with its defaults; its page beside its JSON)"
  start=$(date +%s)
  "$bin/gpulab" suite --json "$res/suite.json" > /dev/null && echo "suite exit code: 0" || echo "suite exit code: $?"
  echo "suite took $(( $(date +%s) - start )) s; page: $(ls "$res"/suite.html 2> /dev/null || echo none)"
fi
tar czf "$OUT/results.tgz" -C "$OUT" results && rm -rf "$res"
echo "== done $(date -u +%FT%TZ)"
