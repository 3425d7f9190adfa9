// The tensor cores' ceilings (`gpulab ceilings`): how fast this GPU multiplies TF32 and INT8
// matrices when nothing else limits it, by the form its GEMMs use — wgmma on Hopper
// (core/tensor_peak_sm90a.cu), mma.sync on the other families with tensor cores (core/ceilings.cu).
#pragma once

#include <cuda_runtime.h>

#include <string_view>

namespace gpulab {

/// One tensor ceiling's kernel, `kernel<<<blocks, threads>>>(groups, sink)`: each block does `groups`
/// groups of `ops_per_group` operations (2 a multiply-add); sink holds `threads` floats a block.
struct TensorPeakKernel {
  void (*kernel)(int groups, float* sink) = nullptr;
  const char* name = "";
  unsigned threads = 0;
  double ops_per_group = 0.0;
  std::string_view form;  // the instruction measured, e.g. "wgmma m64n256k8 tf32"
};

/// The wgmma kernels (compute capability 9.0, where sm_90a code runs).
TensorPeakKernel tensor_peak_wgmma(bool int8);

}  // namespace gpulab
