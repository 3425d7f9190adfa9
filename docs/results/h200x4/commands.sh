bash build/callAS.sh   # four H200s: sgemm over four with the tuner timing each configuration with C's copies written (96e76e3)
