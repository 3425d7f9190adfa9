# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at 984a056) carried
bash build/callBQ.sh   # the tensor ceilings and tf32 route tests; gpulab ceilings; Ozaki-7 launches at 8192^3
