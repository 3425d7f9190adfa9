#!/usr/bin/env bash
# The Debian packages gpulab builds with (the CUDA toolkit itself must already be installed; OpenMPI
# for `mpirun -np N gpulab bench … --gpus N`), and
# the browser its pages are tested in.
set -euo pipefail
packages=(cmake ninja-build g++ libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libstb-dev libopenmpi-dev openmpi-bin chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "note: nvcc is not on PATH; scripts add /usr/local/cuda/bin"
  else
    echo "error: the CUDA toolkit (nvcc) is not installed; gpulab is tested with CUDA 13.0" >&2
    exit 1
  fi
fi
