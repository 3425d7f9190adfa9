# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci cli at cf0c656) carried
bash build/callBZ.sh   # ncu --clock-control none: SM clock, tensor pipe and time of the INT8 products (gpulab's, cuBLAS's) and the tensor ceilings
