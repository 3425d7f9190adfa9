# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at 81210c8) carried
bash build/callCD.sh   # Ozaki tests and ladders; launches at 8192^3; rungs 16, 17 and cuBLAS FP32 at 8192^3 and 16384^3
