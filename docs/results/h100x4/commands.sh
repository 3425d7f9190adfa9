# The call of this record, on the GPU machine (nvidia-h100-x4: four H100s, NVLink NV18 between every
# pair) with the build of e626bf5 carried (build/ci-device.tar.xz), 2026-11-27 20:47-20:55: weak
# scaling of the six problems from one process, a launcher per GPU, 1 and 4 GPUs. Only log.txt came
# back (the call's last line packed the results folder again, over device_run.sh's results.tgz).
tar xJf build/ci-device.tar.xz -C build
GPULAB_BIN=build/ci-device timeout 590 bash scripts/device_run.sh notests multi-weak
