// The library scan's paths, callable one by one so that the ladder can time each apart from the
// library's choice between them.
#pragma once

#include <gpulab/scan.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpulab::scan_detail {

enum class ScanPath {
  library,           // the library's choice: staged_prefetched for 1-byte inputs of the L2's size or
                     // more and 8-byte ones of 8 times it; else prefetched_guess, its stores
                     // evict-first where the output outgrows the L2
  one_tile_a_block,  // rung 5: a block a tile, loaded into registers (any alignment, any GPU)
  staged,            // rung 6: a block a tile, bulk-copied into shared memory; rung 5 where the
                     // pointers are not 16-byte aligned or the GPU is older than Hopper
  evict_first,       // rung 7: rung 5 with its 16-byte output stores marked evict-first in the L2
  prefetched_guess,  // rung 8: rung 7 that only prefetches its guessed tile into the L2 and loads the
                     // tile its ticket names, once
  staged_prefetched, // rung 9: rung 6 started as rung 8 (the guess prefetched, the drawn tile copied)
};

/// The inclusive or exclusive scan by `path`, with the contract of gpulab/scan.hpp.
template <class In>
void scan_by_path(ScanPath path, const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive, void* temp,
                  std::size_t temp_bytes, cudaStream_t stream);

/// The segmented scan's kernel (segmented_scan.cu) as the ladder times it.
enum class SegmentedScanPath {
  compiler_registers,  // rung 1: registers as the compiler chooses them
  two_blocks,          // rung 2: held to 128 registers, two blocks an SM
  prefetched_guess,    // rung 3 and the library: rung 2 started as the scan's rung 8 (its guessed tile
                       // prefetched into the L2, the drawn one loaded)
};

/// The segmented scan over head flags by `path`, with the contract of gpulab/scan.hpp.
template <class In>
void segmented_scan_by_path(SegmentedScanPath path, const In* in, const std::uint8_t* heads, scan_result_t<In>* out,
                            std::size_t n, bool inclusive, void* temp, std::size_t temp_bytes, cudaStream_t stream);

}  // namespace gpulab::scan_detail
