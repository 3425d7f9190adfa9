# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at 17083f0) carried
bash build/callBR.sh   # Ozaki tests (and memcheck of the own products' test); launches at 8192^3; bench at 8192^3 and 16384^3
