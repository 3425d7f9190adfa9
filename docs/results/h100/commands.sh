# The calls of this record, each on the GPU machine with the build of 79de50c carried (scripts/test.sh's build/device.tar.xz)
bash build/call_s5.sh  # one call: the lines below, then the device_run.sh line that ends it
# call_s5.sh: set -u
# call_s5.sh: B=build/device
# call_s5.sh: mkdir -p "$OUT/f" build/b96
# call_s5.sh: tar xJf build/device.tar.xz -C build
# call_s5.sh: tar xJf build/device_96ac727.tar.xz -C build/b96
# call_s5.sh: {
# call_s5.sh: echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s5.sh (the flush: read-only as at $(cat build/b96/device/COMMIT), or leaving the run's written bytes dirty), then device_run.sh notests suite"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# call_s5.sh: for round in 1 2; do
# call_s5.sh: for build in b96/device device; do
# call_s5.sh:   G=build/$build/gpulab; tag=$(cat build/$build/COMMIT | cut -c1-7)_$round
# call_s5.sh:   timeout 60 $G bench reduce -n 2^20,2^22,2^24 -t int32 --variants library,vendor --no-cpu --json $OUT/f/reduce_$tag.json > /dev/null; echo "reduce $tag exit $?"
# call_s5.sh:   timeout 60 $G bench scan -n 2^22,2^24 -t int32 --variants library,vendor --no-cpu --json $OUT/f/scan_$tag.json > /dev/null; echo "scan $tag exit $?"
# call_s5.sh:   timeout 60 $G bench add -s 2048x2048,4096x4096 --variants library,vendor --no-cpu --json $OUT/f/add_$tag.json > /dev/null; echo "add $tag exit $?"
# call_s5.sh:   timeout 60 $G bench sgemm --shapes 1x4096x4096,4096x1x4096 --variants library,vendor --no-cpu --json $OUT/f/sgemm_$tag.json > /dev/null; echo "sgemm $tag exit $?"
# call_s5.sh:   timeout 60 $G bench histogram -n 2^24 -m 256 -d uniform --variants library,vendor --no-cpu --json $OUT/f/hist_$tag.json > /dev/null; echo "hist $tag exit $?"
# call_s5.sh: done
# call_s5.sh: done
# call_s5.sh: echo "== $(date -u +%FT%TZ) flush parts done"
# call_s5.sh: } 2>&1 | tee $OUT/f/log.txt
# call_s5.sh: tar czf $OUT/f.tgz -C $OUT f && rm -rf $OUT/f
# call_s5.sh: GPULAB_BIN=$B bash scripts/device_run.sh notests suite
GPULAB_BIN=build/device bash scripts/device_run.sh tests
