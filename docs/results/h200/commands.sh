# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci cli at d3b765b, the code of 9df2f75) carried
bash build/callBU.sh   # rungs 13, 15-17 and cuBLAS FP32 at 4096^3, 4097^3, 8192^3, 16384^3; errors at +-20 exponents
