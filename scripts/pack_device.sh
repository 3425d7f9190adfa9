#!/usr/bin/env bash
# Packs a built preset for scripts/device_run.sh on a GPU machine: build/PRESET's CLI, GPU tests and
# plots script, the installed library and headers (the Python module is built there against them)
# and the OpenMP runtime, as build/DEST.tar.xz (DEST: device for release, PRESET-device else: ci-device
# for the test command's ci preset), with
# the commit it was built at (-dirty for uncommitted changes: such results cannot be filed).
#   scripts/pack_device.sh [PRESET] [cli|tests|python]   then `run` with carry ["build/DEST.tar.xz"] and
#   GPULAB_BIN=build/DEST bash scripts/device_run.sh …   (a ptx preset: GPULAB_TREAT_AS=sm_75 … too)
# Everything is ~60 MB, past a call's 64 MiB with the ~13 MB tree; a part of it: cli, the CLI alone
# (benches, runs, profiles; ~21 MB); tests, the CLI and the GPU tests (~43 MB); python, the CLI and the
# installed library, which the Python parts build against (~38 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
part=everything
if [ $# -ge 2 ]; then
  case "$2" in
    cli | tests | python) part=$2 ;;
    *) echo "pack_device: the second argument may be 'cli' (the CLI alone), 'tests' (the CLI and the GPU tests) or 'python' (the CLI and the installed library), not '$2'" >&2; exit 2 ;;
  esac
fi
from=build/$preset
dest=device
[ "$preset" = release ] || dest=$preset-device
[ -x "$from/gpulab" ] || { echo "pack_device: $from/gpulab not built (cmake --build --preset $preset)" >&2; exit 1; }
# Configured again first: the CLI's reports name the commit of the last configure, which must be the
# one packed (a build brought up to date after a commit without it names the commit before).
PATH="/usr/local/cuda/bin:$PATH" cmake --preset "$preset" > /dev/null && cmake --build --preset "$preset" > /dev/null
{ git rev-parse --short=12 HEAD 2>/dev/null || echo unknown; } | tr -d '\n' > "$from/COMMIT"
git diff --quiet HEAD -- 2>/dev/null || printf -- '-dirty' >> "$from/COMMIT"
echo >> "$from/COMMIT"
mkdir -p "$from/devlibs" && cp -L "$(g++ -print-file-name=libgomp.so.1)" "$from/devlibs/" 2>/dev/null || true
rm -rf "build/$dest" "$from/prefix" && mkdir -p "build/$dest/tests"
cmake --install "$from" --prefix "$from/prefix" > /dev/null
cp "$from/gpulab" "$from/gpulab_plots.py" "$from/COMMIT" "build/$dest/" && cp -r "$from/devlibs" "build/$dest/"
case "$part" in everything | tests) cp "$from/tests/gpulab_gpu_tests" "build/$dest/tests/" ;; esac
case "$part" in everything | python) cp -r "$from/prefix" "build/$dest/prefix" && rm -rf "build/$dest/prefix/bin" ;; esac
# Packed: the fat binaries shrink about fourfold (~250 MB to ~60 for everything); scripts/device_run.sh
# unpacks it.
tar cJf "build/$dest.tar.xz" -C build "$dest"
case "$part" in
  cli) what=', the CLI alone' ;; tests) what=', the CLI and the GPU tests' ;; python) what=', the CLI and the installed library' ;; *) what='' ;;
esac
echo "packed build/$dest.tar.xz ($(du -h "build/$dest.tar.xz" | cut -f1)$what) of $(cat "$from/COMMIT")"
