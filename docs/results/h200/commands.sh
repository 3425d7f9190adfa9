# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at cb73812) carried
bash build/callCB.sh   # Ozaki tests (the own products' test under memcheck and initcheck); launches at 8192^3 and 16384^3; bench of rungs 13, 16, 17 and cuBLAS FP32 at 4096^3, 4097^3, 8192^3, 16384^3
