bash build/callAO.sh   # scan rung 8 with an L2 prefetch of the tile one generation ahead (branch wip/scan-prefetch, 0e24504), distance swept by GPULAB_EXPERIMENT_SCAN_AHEAD
