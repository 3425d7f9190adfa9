# One call on the GPU machine with build/ci-device.tar.xz (scripts/pack_device.sh ci tests at 9df2f75) and build/exp/ozaki.ncu-rep (the record before's report) carried
bash build/callBT.sh   # Ozaki tests; launches at 8192^3; stall reasons of the products; SM clock and power under load
