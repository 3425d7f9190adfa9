# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci cli at cf0c656) carried
bash build/callBY.sh   # wgmma_3xtf32 launches by form at 8192^3; ncu of the TN split
