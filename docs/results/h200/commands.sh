# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci cli at 3505ed6) carried
bash build/callBW.sh   # gpulab sanitize sgemm --tools initcheck,memcheck
