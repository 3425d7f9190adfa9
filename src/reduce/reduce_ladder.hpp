// The reduction ladder's table: the only place a rung is registered. The bench, the tests, the
// CLI's `list` and the reports all walk this table; adding a rung = one kernel + one line here.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <string_view>

namespace gpulab {

template <class T>
struct ReduceVariant {
  std::string_view id;    // "1" … "8", "vendor"
  std::string_view name;  // the idea, as a name
  std::string_view adds;  // what it adds over the rung before, one line
  bool vendor = false;
  bool uses_block = false;  // honours the block-size parameter
  /// Device workspace the run needs (zero-filled by the caller once, after allocation).
  std::size_t (*workspace_bytes)(std::size_t n, unsigned block) = nullptr;
  /// *out = Σ in[0, n), asynchronously on `stream`.
  void (*run)(const T* in, std::size_t n, T* out, void* workspace, std::size_t workspace_bytes,
              unsigned block, cudaStream_t stream) = nullptr;
  /// The longest chain of additions (see core/check.hpp): the k of the float tolerance.
  std::size_t (*depth)(std::size_t n, unsigned block) = nullptr;
};

/// Rungs 1–8 in order, then the vendor baseline (cub::DeviceReduce::Sum).
template <class T>
std::span<const ReduceVariant<T>> reduce_variants();

/// Rungs 1–6 halve the block in their trees: a power of two in [32, 1024].
constexpr bool valid_reduce_block(unsigned block) {
  return block >= 32 && block <= 1024 && (block & (block - 1)) == 0;
}

}  // namespace gpulab
