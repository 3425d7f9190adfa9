#!/bin/sh
# The real gpulab binary: exit codes and messages people and scripts rely on.
# With CUDA_VISIBLE_DEVICES empty, the CUDA runtime sees no device even on a GPU machine.
set -u
gpulab="$1"
failures=0
expect() {  # expect CODE PATTERN -- ARGS...
  want=$1; pattern=$2; shift 3
  out=$("$@" 2>&1); got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: '$*' exited $got, expected $want"; echo "$out" | head -5; failures=$((failures + 1))
  elif ! printf '%s' "$out" | grep -q -- "$pattern"; then
    echo "FAIL: '$*' did not print '$pattern'"; echo "$out" | head -5; failures=$((failures + 1))
  else
    echo "ok: '$*' -> $got"
  fi
}
expect 0 "Exit codes" -- "$gpulab" --help
expect 2 "subcommand is required" -- "$gpulab"
expect 2 "not a list of sizes" -- "$gpulab" bench reduce --n 2^
expect 2 "block" -- "$gpulab" bench reduce --block 100
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" info
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" bench reduce --n 2^10
expect 2 "m must be in" -- "$gpulab" bench histogram --bins 0
expect 2 "is not uniform, narrow, degenerate" -- "$gpulab" bench histogram --dist zipf
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" bench histogram --n 2^10 --bins 8
expect 0 "vendor" -- "$gpulab" list
expect 0 "single_pass_deterministic" -- "$gpulab" list reduce
expect 2 "no problem 'reduc'" -- "$gpulab" list reduc
expect 2 "not one of sm_75, sm_80, sm_86, sm_89" -- "$gpulab" --treat-as sm_99 list
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" --treat-as sm_75 info
expect 0 "wgmma_3xtf32 .*\[sm_90a: wgmma, TMA\]" -- "$gpulab" list
expect 2 "no rung 'nope'" -- "$gpulab" bench reduce --variants library,nope
expect 2 "'NX' is not a form: NN, NT, TN or TT" -- "$gpulab" bench sgemm --forms NN,NX
expect 2 "batch" -- "$gpulab" bench sgemm --batch 0
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" bench sgemm --shapes 64 --forms NT,TT --batch 3
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" bench reduce --variants library,vendor --n 2^10
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" run atax --shapes 31x33
expect 1 "cannot open" -- "$gpulab" conv check /nonexistent/a.png /nonexistent/b.png
expect 2 "FILES is required" -- "$gpulab" conv batch -o /tmp/gpulab-batch-test
expect 2 "not in range" -- "$gpulab" conv batch a.png -o /tmp/gpulab-batch-test --streams 0
expect 2 "is not pageable, pinned, registered, managed" -- "$gpulab" conv batch a.png -o /tmp/gpulab-batch-test --memory bogus
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" conv batch a.png -o /tmp/gpulab-batch-test
# Reports need no GPU: a page of none is a usage error, a comparison of a file with itself moves nothing.
expect 2 "RUN is required" -- "$gpulab" report -o /tmp/gpulab-page-test.html
expect 2 "File does not exist" -- "$gpulab" compare /nonexistent/a.json /nonexistent/b.json
printf '{"gpulab_version": "0.1.0"}' > /tmp/gpulab-not-a-report.json
expect 1 "malformed gpulab report" -- "$gpulab" compare /tmp/gpulab-not-a-report.json /tmp/gpulab-not-a-report.json
# The profiler and the sanitizer are looked for before any GPU work: missing, exit code 5.
expect 5 "needs Nsight Compute" -- "$gpulab" profile reduce --ncu /nonexistent/ncu
expect 5 "needs compute-sanitizer" -- "$gpulab" sanitize --compute-sanitizer /nonexistent/compute-sanitizer
expect 5 "suite --sanitize needs compute-sanitizer" -- "$gpulab" suite --sanitize --compute-sanitizer /nonexistent/cs
expect 2 "no problem 'nope'" -- "$gpulab" sanitize nope
expect 2 "not in" -- "$gpulab" sanitize --tools memcheck,leakcheck
expect 2 "not a list of sizes" -- "$gpulab" check reduce --n 2^
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" check reduce --n 1,1000
# Several GPUs: only the problems with a multi-GPU form, checked before any GPU work.
expect 2 "has no multi-GPU form" -- "$gpulab" bench transpose --gpus 2
expect 2 "not in" -- "$gpulab" bench reduce --gpus 2 --placement nowhere
expect 2 "profile takes one GPU" -- "$gpulab" profile reduce --gpus 2
expect 2 "goes with --gpus" -- "$gpulab" bench reduce --weak --n 2^20
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" bench reduce --gpus 2 --n 2^20
expect 2 "not in range" -- "$gpulab" bench reduce --gpus 2,0 --n 2^20
expect 2 "four not in range" -- "$gpulab" bench reduce --gpus 2,four --n 2^20
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" bench reduce --gpus 4,2 --n 2^20
expect 2 "not in range" -- "$gpulab" ceilings --gpus 0
expect 3 "no CUDA device" -- env CUDA_VISIBLE_DEVICES= "$gpulab" ceilings --gpus 4
# Every problem's recorded runs (benches and profiles, one GPU and several) are commands the CLI
# takes: without a device each ends with 3 (or 5 for a profile without ncu), never a usage error.
expect 2 "nothing not in" -- "$gpulab" showcase --out /tmp/gpulab-showcase-test --parts nothing
cmds=/tmp/gpulab-showcase-cmds.txt
"$gpulab" showcase --out /tmp/gpulab-showcase-test --parts runs,profiles,multi,multi-mpi,multi-weak,multi-more --gpus 2 \
  --dry-run > "$cmds" || { echo "FAIL: showcase --dry-run"; failures=$((failures + 1)); }
checked=0
while read -r first rest; do
  [ "$first" = mpirun ] && { set -- $rest; shift 2; first=$1; shift; rest="--device 0 $*"; }  # mpirun -np N gpulab …
  set -- $rest
  case "$3" in bench | profile) ;; *) continue ;; esac
  env CUDA_VISIBLE_DEVICES= "$first" "$@" > /dev/null 2>&1; got=$?
  checked=$((checked + 1))
  [ "$got" -eq 3 ] || [ "$got" -eq 5 ] || { echo "FAIL: showcase's '$first $*' exited $got"; failures=$((failures + 1)); }
done < "$cmds"
# Over four GPUs, one process times 1, 2 and 4 (the scaling's course); MPI one process a GPU.
"$gpulab" showcase --out /tmp/gpulab-showcase-test --parts multi,multi-mpi --gpus 4 --dry-run > "$cmds"
grep -q -- "bench reduce .*--gpus 2,4" "$cmds" && grep -q -- "^mpirun -np 4 .*--gpus 4" "$cmds" &&
  echo "ok: showcase over 4 GPUs times 2,4 (MPI: 4)" || { echo "FAIL: showcase --gpus 4"; cat "$cmds"; failures=$((failures + 1)); }
[ "$checked" -ge 40 ] && echo "ok: $checked showcase commands parse" || { echo "FAIL: only $checked showcase commands"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
