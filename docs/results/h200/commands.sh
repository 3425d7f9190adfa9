bash build/callAU.sh   # conv lanes compiled for 5, 6 and 8 blocks an SM (branch wip/conv-warps, ae0fcf2; GPULAB_EXPERIMENT_CONV_BLOCKS)
