# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at 188eac0) carried
bash build/callBV.sh   # the Ozaki tests; gpulab sanitize sgemm (the four tools, every rung)
