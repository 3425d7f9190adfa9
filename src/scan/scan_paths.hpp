// The library scan's paths, callable one by one so that the ladder can time each apart from the
// library's choice between them.
#pragma once

#include <gpulab/scan.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace gpulab::scan_detail {

enum class ScanPath {
  library,           // the library's choice: staged for 8-bit inputs where it can run, else one_tile_a_block
  one_tile_a_block,  // rung 5: a block a tile, loaded into registers (any alignment, any GPU)
  staged,            // rung 6: a block a tile, bulk-copied into shared memory (Hopper and later)
};

/// The inclusive or exclusive scan by `path`, with the contract of gpulab/scan.hpp; the
/// staged path throws gpulab::Error unless both pointers are 16-byte aligned on a GPU of
/// compute capability 9.0 or later.
template <class In>
void scan_by_path(ScanPath path, const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive, void* temp,
                  std::size_t temp_bytes, cudaStream_t stream);

}  // namespace gpulab::scan_detail
