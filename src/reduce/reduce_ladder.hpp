// The reduction ladder's table: the only place a rung is registered. The bench, the tests, the
// CLI's `list` and the reports all walk this table; adding a rung = one kernel + one line here
// (docs/adding.md).
#pragma once

#include "core/ladder.hpp"
#include "lib/launch_limits.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <string_view>

namespace gpulab {

/// A reduction rung's launch functions (core/ladder.hpp adds its name, what it adds and its role).
template <class T>
struct ReduceOps {
  /// Device workspace the run needs (zero-filled by the caller once, after allocation).
  std::size_t (*workspace_bytes)(std::size_t n, unsigned block) = nullptr;
  /// *out = Σ in[0, n), asynchronously on `stream`.
  void (*run)(const T* in, std::size_t n, T* out, void* workspace, std::size_t workspace_bytes, unsigned block,
              cudaStream_t stream) = nullptr;
  /// The longest chain of additions (see core/check.hpp): the k of the float tolerance.
  std::size_t (*depth)(std::size_t n, unsigned block) = nullptr;
};

template <class T>
using ReduceRung = Rung<ReduceOps<T>>;

/// The ladder in order, the library's reduce_sum among it, then the vendor (cub::DeviceReduce::Sum).
template <class T>
std::span<const ReduceRung<T>> reduce_rungs();

/// Rungs 1–6 halve the block in their trees: a power of two in [32, 1024].
constexpr bool valid_reduce_block(unsigned block) { return valid_tree_block(block); }

}  // namespace gpulab
