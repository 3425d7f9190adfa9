// The scan ladder's table: the only place a rung is registered (docs/adding.md). The bench, the
// tests, the CLI's `list` and the reports all walk it.
#pragma once

#include "core/ladder.hpp"
#include "lib/launch_limits.hpp"
#include "scan/scan_cpu.hpp"

#include <gpulab/scan.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <span>

namespace gpulab {

/// A scan rung's launch functions (core/ladder.hpp adds its name, what it adds and its role).
template <class In>
struct ScanOps {
  /// Device workspace the run needs (zero-filled by the caller once, after allocation).
  std::size_t (*workspace_bytes)(std::size_t n, unsigned block) = nullptr;
  /// out = the inclusive or exclusive prefix sums of in[0, n), asynchronously on `stream`.
  void (*run)(const In* in, scan_result_t<In>* out, std::size_t n, ScanKind kind, void* workspace,
              std::size_t workspace_bytes, unsigned block, cudaStream_t stream) = nullptr;
  /// The chain of additions behind each output (the k of the float tolerance).
  ScanDepth (*depth)(std::size_t n, unsigned block) = nullptr;
};

template <class In>
using ScanRung = Rung<ScanOps<In>>;

/// The ladder in order, the library's scan among it, then the vendor (cub::DeviceScan).
template <class In>
std::span<const ScanRung<In>> scan_rungs();

/// Rungs 1–4 build trees over the block: a power of two in [32, 1024].
constexpr bool valid_scan_block(unsigned block) { return valid_tree_block(block); }

}  // namespace gpulab
