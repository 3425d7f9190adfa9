bash build/callAT.sh   # conv lanes: two rows in flight and band heights (branch wip/conv-ahead, 24f7e9a; GPULAB_EXPERIMENT_CONV)
