bash build/callAR.sh   # four H200s: multi scan totals by peer writes (3083333) against NCCL (GPULAB_MULTI_PEER_WRITES=0), histogram 2^31, sgemm 4096³, the multi-GPU scan tests
