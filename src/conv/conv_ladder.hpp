// The conv ladder's table: the only place a rung is registered (bench, tests, `gpulab list`,
// `gpulab conv run`).
#pragma once

#include "conv/conv_args.hpp"
#include "core/ladder.hpp"

#include <cuda_runtime.h>

#include <optional>
#include <span>
#include <string>

namespace gpulab {

struct ConvOps {
  /// out = the filter over in, asynchronously on `stream`.
  void (*run)(const conv_device::ConvArgs& a, cudaStream_t stream) = nullptr;
  /// Why this row cannot take a case, asked before anything is allocated (`shape`: the case's
  /// sizes, pitches, filter and border; its pointers null, standing for cudaMalloc's alignment);
  /// nullptr: every case.
  std::optional<std::string> (*refuses)(const conv_device::ConvArgs& shape) = nullptr;
};

using ConvRung = Rung<ConvOps>;

/// From a thread per pixel to two channels a register, the library's gpulab::conv3x3, then the
/// vendor (NPP's FilterBorder, where NPP is found).
std::span<const ConvRung> conv_rungs();

}  // namespace gpulab
