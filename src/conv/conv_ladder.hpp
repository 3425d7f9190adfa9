// The conv ladder's table: the only place a rung is registered (bench, tests, `gpulab list`,
// `gpulab conv run`).
#pragma once

#include "conv/conv_args.hpp"
#include "core/ladder.hpp"

#include <cuda_runtime.h>

#include <span>

namespace gpulab {

struct ConvOps {
  /// out = the filter over in, asynchronously on `stream`.
  void (*run)(const conv_device::ConvArgs& a, cudaStream_t stream) = nullptr;
};

using ConvRung = Rung<ConvOps>;

/// A thread per pixel, a shared tile, a register sliding window, the library's gpulab::conv3x3,
/// then the vendor (NPP's FilterBorder, where NPP is found). (More rungs of issue 14 to come.)
std::span<const ConvRung> conv_rungs();

}  // namespace gpulab
