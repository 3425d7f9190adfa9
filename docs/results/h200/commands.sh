# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at cb73812) carried
bash build/callCC.sh   # initcheck of SgemmOzaki.Own*: the kernels it names
