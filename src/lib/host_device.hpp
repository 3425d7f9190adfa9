// Code that host and device share (a rule the CPU tests check against the GPU's own).
#pragma once

#if defined(__CUDACC__)
#define GPULAB_HOST_DEVICE __host__ __device__
#else
#define GPULAB_HOST_DEVICE
#endif
