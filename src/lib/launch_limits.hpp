// What the current device allows a launch, asked in one place: the library's paths size their
// resident grids with it, and `gpulab atax run` reports it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <span>

namespace gpulab {

/// An attribute of the current device (cudaDeviceGetAttribute, errors thrown); where the GPU is
/// treated as an older family (lib/treat_as.hpp), that family's compute capability and limits.
int current_device_attribute(cudaDeviceAttr attribute);

/// The current device's L2 cache in bytes (asked once per device).
std::size_t current_l2_bytes();

/// The current device's DRAM bandwidth a cycle of one SM, in bytes: its memory's clock × bus width
/// × 2 (double data rate) ÷ (SMs × SM clock), from its attributes (asked once per device; the GPU's
/// own, treated as an older family or not). About 12.8 on an H100 SXM, 18.8 on an H200, 13 on an
/// A100, 5 on a T4: what each SM must take in a cycle to keep the memory busy, so how few
/// instructions a byte a streaming kernel can afford.
double current_dram_bytes_per_sm_cycle();

/// The current device's compute capability as major·10 + minor (75, 80, 86, 89, 90, …; asked
/// once per device; the treated-as family's where one is set).
int current_compute_capability();

/// Whether the current device takes programmatic dependent launches (compute capability 9.0+;
/// asked once per device).
bool current_device_follows();

/// The dynamic shared memory `kernel` may ask for a block on the current device: its opt-in limit
/// (the treated-as family's where one is set) less the kernel's static shared memory.
std::size_t dynamic_smem_limit(const void* kernel);

/// Lets `kernel` ask for `bytes` of dynamic shared memory a block (above the default 48 KiB);
/// throws gpulab::Error naming `who` where the device (or the family it is treated as) has less:
/// the check a T4's 64 KiB would make, made on any GPU.
void allow_dynamic_smem(const void* kernel, std::size_t bytes, const char* who);

/// Lets each of `kernels` (instances of one kernel, sized alike) ask for the most dynamic shared
/// memory every one of them may (the least of their dynamic_smem_limit()s), and returns it. Callers
/// keep it per device (PerDevice), so that the attribute is set once, not on every call.
std::size_t allow_most_dynamic_smem(std::span<const void* const> kernels, const char* who);

/// Blocks of `kernel` the current device holds at once with this block size and dynamic shared
/// memory: the occupancy per SM (registers, threads, shared memory) times the SMs. 0 when a
/// block does not fit an SM at all.
unsigned resident_blocks(const void* kernel, unsigned block, std::size_t dynamic_smem = 0);

/// Clusters of `ranks` blocks of `block` threads, each with `dynamic_smem` bytes, that `kernel` can
/// have resident at once on the current device (0: not even one fits; past 8 ranks the kernel must
/// allow non-portable cluster sizes first).
int resident_clusters(const void* kernel, unsigned block, unsigned ranks, std::size_t dynamic_smem = 0);

/// `blocks` as a grid's x dimension; throws gpulab::Error naming `who` past 2^31 − 1 blocks.
unsigned checked_grid(std::size_t blocks, const char* who);

/// Blocks of `block` threads for a grid-stride loop over `items`: a block's worth of items each, at
/// least one, at most 8192 (the threads then loop; 8192 blocks of 256 fill any GPU several times).
unsigned grid_stride_blocks(std::size_t items, unsigned block);

/// Blocks of `kernel` for a grid-stride loop over `items`: a block's worth of items each, at least
/// one, at most the blocks the device holds at once (resident_blocks), so that each thread loops.
unsigned resident_grid(const void* kernel, std::size_t items, unsigned block, std::size_t dynamic_smem = 0);

/// A 2-D grid of tiles: x across `x_items` in tiles of `x_tile` (checked_grid), y across `y_items`
/// in tiles of `y_tile` (capped_grid_y: kernels loop over the tile rows past gridDim.y).
dim3 tile_grid(std::size_t x_items, std::size_t x_tile, std::size_t y_items, std::size_t y_tile, const char* who);

/// `rows` (of blocks) as a grid's y dimension, capped at the 65535 CUDA allows: kernels given it
/// loop over the rows past gridDim.y.
constexpr unsigned capped_grid_y(std::size_t rows) { return static_cast<unsigned>(rows < 65535 ? rows : 65535); }

/// The block sizes of the ladders whose trees halve the block: a power of two in [32, 1024].
constexpr bool valid_tree_block(unsigned block) { return block >= 32 && block <= 1024 && (block & (block - 1)) == 0; }

}  // namespace gpulab
