# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci cli at 3505ed6) carried
bash build/callBX.sh   # compute-sanitizer initcheck of gpulab run sgemm, rungs 15 and 16, three small shapes
