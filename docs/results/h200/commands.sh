# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at 81210c8) carried
bash build/callCE.sh   # ncu of the residue passes at 8192^3
