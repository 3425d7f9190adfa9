// The atax ladder's table: the only place a rung is registered (bench, tests, `gpulab list`,
// `gpulab atax run` all walk it).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpulab {

struct AtaxVariant {
  std::string_view id;    // "1" … "5", "vendor"
  std::string_view name;
  std::string_view adds;  // what it adds over the rung before, one line
  bool vendor = false;
  std::size_t (*workspace_bytes)(std::uint32_t rows, std::uint32_t cols) = nullptr;
  /// y = Aᵀ(A·x), asynchronously on `stream`; y need not be initialised.
  void (*run)(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* workspace,
              std::size_t workspace_bytes, cudaStream_t stream) = nullptr;
};

/// Rungs 1–5 (5 is the library's gpulab::atax), then the vendor (two cublasSgemv calls).
std::span<const AtaxVariant> atax_variants();

/// The variant with this id or name, or nullptr.
const AtaxVariant* find_atax_variant(std::string_view id_or_name);

}  // namespace gpulab
