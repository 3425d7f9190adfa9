# One call on nvidia-h100-x1 with the build of d490177 carried (build/ci-device.tar.xz), 2026-11-28 07:30-07:32:
# the weighted histogram GPU tests (8 pass: float64 digits bit for bit, float32 rounded once to
# float), its ladder at 2^26 weights into 256, 656 and 4096 bins, float32 and float64, uniform,
# narrow and degenerate values, and torch.bincount(weights=) / cupy.bincount beside it.
tar xJf build/ci-device.tar.xz -C build; B=build/ci-device
$B/tests/gpulab_gpu_tests --gtest_filter="HistogramWeighted.*" --gtest_output=json:$OUT/results/gpu_tests.json --gtest_brief=1
$B/gpulab bench weighted_histogram -n 2^26 -m 256,656,4096 --json $OUT/results/weighted_histogram.json --md $OUT/results/weighted_histogram.md
python3 src/histogram/peers_weighted.py --n 2^26 --bins 256,656,4096 --json $OUT/results/peers_weighted_histogram.json
