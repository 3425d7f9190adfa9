# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci cli at 0fd2374) and an experiment's CLI, build/exp/gpulab-c4.xz (sgemm_ozaki_products.cu with kCluster = 4), carried
bash build/callBS.sh   # clusters of 4 against 2 at 8192^3 and 16384^3; ncu of the Ozaki launches at 8192^3
