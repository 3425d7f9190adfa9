# One call on an H200 with the build of 54bf84b carried (the branch atax-block-experiment, not merged: GPULAB_ATAX_EXPERIMENT picks rung 5's blocks); the call script was kept beside the build:
for round in 1 2; do for e in none 512 panels 512,panels; do GPULAB_ATAX_EXPERIMENT=$e gpulab bench atax -s 8960x17920,5000x32000,16384x9800 --variants 4,5,vendor --no-cpu --json atax_${e/,/_}_$round.json; done; done
GPULAB_ATAX_EXPERIMENT=512|panels ncu --metrics (issue, instructions, DRAM, stall reasons) --nvtx ... gpulab profile atax -s 8960x17920 --variants 5 --ncu-target > ncu_atax_$e.txt
