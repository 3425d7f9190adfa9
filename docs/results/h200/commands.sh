#!/usr/bin/env bash
# One H200 (session 28): tf32 through cuBLAS where the rule says: the sgemm GPU tests, memcheck on
# the vendor path's test, the launch list, and library_tf32 against cuBLAS TF32 on the sweep, every
# form, unaligned rows and batches; TN between 2^33 and 2^36 multiply-adds.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
summary() { python3 - "$1" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    r=t.get('library_tf32',0)and t.get('cublas_tf32',0)/t['library_tf32']
    print(c.get('params'), {k:round(x,4) for k,x in t.items()}, 'library_tf32 / cublas_tf32 speed: %.3f' % r)
PY
}
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm tests, memcheck of the vendor path, launch list, tf32 library against cuBLAS TF32"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 240 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -6; echo "tests exit code: ${PIPESTATUS[0]}"
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='*Tf32TakesCublas*' --gtest_brief=1 > $R/san_memcheck.txt 2>&1; echo "memcheck exit code: $?"; tail -2 $R/san_memcheck.txt
  $G run sgemm -s 4096 --variant library_tf32 2>&1 | grep -E "^\* " | head -8
  $G run sgemm -s 4096 --forms TN --variant library_tf32 2>&1 | grep -E "^\* " | head -8
  V=wgmma_tf32_wide,library_tf32,cublas_tf32
  S=256,512,768,1000,1024,1031x1029x1027,2048,4096,4097,8192,512x512x4096,4096x4096x64,5000x3000x700,8192x256x1024,2^16x256x256,300x300x20000,16x4096x4096,1x4096x4096,33x65x17
  timeout 120 $G bench sgemm -s $S --variants $V --reps 20 --no-cpu --no-ceilings --json $R/sweep.json > $R/sweep.txt 2>&1; echo "sweep exit code: $?"; summary $R/sweep.json
  S=1024,2048,4096,8192,5000x3000x700,4097
  timeout 120 $G bench sgemm -s $S --forms NN,NT,TN,TT --variants $V --reps 20 --no-cpu --no-ceilings --json $R/forms.json > $R/forms.txt 2>&1; echo "forms exit code: $?"; summary $R/forms.json
  timeout 60 $G bench sgemm -s 2560,3072,3584,2048x4096x4096 --forms TN --variants $V --reps 20 --no-cpu --no-ceilings --json $R/tn.json > $R/tn.txt 2>&1; echo "tn exit code: $?"; summary $R/tn.json
  timeout 60 $G bench sgemm -s 1024,1536,2048,4096 --pad 1 --variants $V --reps 20 --no-cpu --no-ceilings --json $R/pad1.json > $R/pad1.txt 2>&1; echo "pad1 exit code: $?"; summary $R/pad1.json
  timeout 60 $G bench sgemm -s 512,256,1000x1000x64,128x128x128 --batch 64 --variants library_tf32,cublas_tf32 --reps 20 --no-cpu --no-ceilings --json $R/batch.json > $R/batch.txt 2>&1; echo "batch exit code: $?"; summary $R/batch.json
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
