# nvidia-h200, 2026-11-28, commit c96b0d3 (scripts/pack_device.sh ci; build/callAK.sh, then build/callAL.sh):
G=build/ci-device/gpulab
$G bench sgemm -s 1024,4097,5000x3000x700,4096,8192 --variants library,cublasSgemm --reps 20 --no-cpu --no-ceilings
$G bench sgemm -s 4097 --variants warp_tiles,pipelined,fragments,staged,library,cublasSgemm --reps 10 --no-cpu --no-ceilings
$G run sgemm -s 4097 --variant library; $G run sgemm -s 4096 --variant library
