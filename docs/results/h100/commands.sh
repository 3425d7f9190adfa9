# One call on an H100 with the build of 0875a0f (scripts/pack_device.sh ci): the weighted GPU tests, the weighted ladder and its peers, rungs 2, 5 and the library from 2300 to 14 000 bins
export GPULAB_BIN=build/ci-device; GPU_TESTS="HistogramWeighted.*" bash scripts/device_run.sh tests weighted_histogram
B=build/ci-device/gpulab; $B bench weighted_histogram -m 2300,2400,8192,14000 -d uniform -t float32 --variants 2,5,6 --json weighted_wide.json > weighted_wide.txt
python3 src/histogram/peers_weighted.py --n 2^26 --bins 8192,14000 > peers_wide.txt
