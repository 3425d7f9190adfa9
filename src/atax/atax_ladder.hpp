// The atax ladder's table: the only place a rung is registered (bench, tests, `gpulab list`,
// `gpulab atax run` all walk it).
#pragma once

#include "core/ladder.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpulab {

/// An atax rung's launch functions (core/ladder.hpp adds its name, what it adds and its role).
struct AtaxOps {
  std::size_t (*workspace_bytes)(std::uint32_t rows, std::uint32_t cols) = nullptr;
  /// y = Aᵀ(A·x), asynchronously on `stream`; y need not be initialised.
  void (*run)(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* workspace,
              std::size_t workspace_bytes, cudaStream_t stream) = nullptr;
};

using AtaxRung = Rung<AtaxOps>;

/// The seed's kernels, naive, coalesced two-pass, the first fused pass, the library's gpulab::atax,
/// then the vendor (two cublasSgemv calls).
std::span<const AtaxRung> atax_rungs();

}  // namespace gpulab
