# One call on nvidia-h100-x1 (2026-11-24 23:24 UTC), build/device.tar.xz of 9874259 carried:
GPULAB_BIN=build/device timeout 540 bash scripts/device_run.sh notests reduce multi
# then, in the same call, a peers script from its new place:
python3 src/scan/peers.py --n 2^20 --reps 3
