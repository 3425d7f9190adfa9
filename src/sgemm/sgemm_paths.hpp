// The library's SGEMM paths, for the ladder's rungs that show them one at a time and for the tests
// that check every tile configuration the tuner may pick.
#pragma once

#include "lib/arith.hpp"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "sgemm/sgemm_args.hpp"

#include <gpulab/error.hpp>
#include <gpulab/sgemm.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <string_view>

namespace gpulab::sgemm_detail {

using sgemm_device::GemmArgs;

/// Tiles of tile_m × tile_n that cover an m × n output.
constexpr std::size_t tile_count(int m, int n, int tile_m, int tile_n) {
  return ceil_div(static_cast<std::size_t>(m), static_cast<std::size_t>(tile_m)) *
         ceil_div(static_cast<std::size_t>(n), static_cast<std::size_t>(tile_n));
}

/// Dynamic shared memory above 48 KiB must be asked for, once per kernel and device; throws where
/// the device (or the family it is treated as) has less.
template <auto Kernel>
void allow_smem(std::size_t bytes) {
  static PerDevice<bool> done;
  done.get([&] {
    allow_dynamic_smem(reinterpret_cast<const void*>(Kernel), bytes, "gpulab::sgemm");
    return true;
  });
}

/// "A and B as stored", "A stored transposed", "B stored transposed", "A and B stored transposed".
std::string_view operand_form(const GemmArgs& g);

/// A tile configuration of the warp-tiled kernel the tuner chooses among.
struct TileConfig {
  std::string_view name;  // "128x128x3": tile rows × tile columns × cp.async stages; "128x128_fragments": the big-tile kernel
  int tile_m = 0, tile_n = 0;
  std::size_t smem_bytes = 0;  // dynamic shared memory a block
  bool every_form = false;     // takes operands stored transposed too (the big tiles), not only as stored
};
std::span<const TileConfig> tile_configs();
/// Whether configuration `config` takes g's operands in their form.
bool config_takes(std::size_t config, const GemmArgs& g);
/// Whether the current device gives configuration `config` its shared memory (a T4's 64 KiB a
/// block holds all but the 256 × 128 tiles' three stages, 84 KiB).
bool config_fits(std::size_t config);

/// Configurations by index in tile_configs(): the default (128 × 64, three stages), the smallest
/// (64 × 64), the big tiles' fragments and staged kernels (rungs 9 and 10), and the staged kernel's
/// small tiles (64 × 128). kStaged and kSmallStaged are the rule's picks for operands stored
/// transposed, which only the big tiles take.
constexpr std::size_t kDefault = 0, kSmall = 3, kBig = 6, kStaged = 9, kSmallStaged = 10;

/// g.c = alpha·A·B + beta·C with configuration `config`, k cut into `splits` slices (1: none; so
/// for a batch, g.batch > 1). `partials` holds splits·m·n floats when splits > 1.
void run_config(std::size_t config, const GemmArgs& g, int splits, float* partials, cudaStream_t stream);

/// Outputs of at most this many rows take the few-rows path: B read once, no 64-row tiles.
constexpr int kFewRows = 8;
/// The slices of k of the few-rows path for this shape on the current device (1: none).
int few_rows_splits(const GemmArgs& g);
/// The rules' pure forms (before the 256 MiB cap on partial sums), for a device of `sms` SMs that
/// holds clusters of up to `max_ranks` blocks; tests/test_sgemm_cpu.cpp pins their choices.
std::size_t few_rows_splits_for(std::size_t n, std::size_t k, std::size_t sms);
int few_rows_cluster_ranks_for(std::size_t m, std::size_t n, std::size_t k, std::size_t sms, int max_ranks);
std::size_t split_count_for(std::size_t m, std::size_t n, std::size_t k, std::size_t sms);
/// The few-rows path (g.m ≤ kFewRows); `partials` holds splits·m·n floats when splits > 1.
void run_few_rows(const GemmArgs& g, int splits, float* partials, cudaStream_t stream);
/// Clusters of up to this many blocks share k in the few-rows path's one-launch form (16, past
/// the portable 8, where the device can hold such a cluster: few_rows_max_cluster_ranks()).
constexpr int kMaxClusterRanks = 16;
/// The largest cluster the one-launch few-rows form may use on the current device: 16 or 8.
int few_rows_max_cluster_ranks();
/// The blocks a cluster of the one-launch few-rows form splits k into for this shape on the
/// current device; 0 where the split-K form is taken (too few columns for clusters, or more than
/// 4 rows and enough blocks for the split-K form to fill the GPU).
int few_rows_cluster_ranks(const GemmArgs& g);

/// The stages of gpulab::multi::sgemm over `ranks` ranks of an m × n C where its rows are sent by
/// NCCL (sgemm_multi.cu): a rank's rows computed in this many parts, each part's rows sent while
/// the next are computed. The shape's alone, so the same on every rank.
std::size_t multi_sgemm_stages(std::size_t m, std::size_t n, int ranks);
/// gpulab::sgemm (one product) whose C is also written, element for element as it is made (copied
/// after it where tf32 takes cuBLAS), to each of `copies` (at most GemmArgs::kMaxCopies, each laid
/// out as C, ldc apart, at an address equal to C's modulo 16 bytes, sharing no byte with A, B, C or
/// each other; any GPU's memory the device may write): multi::sgemm's ranks, in one process, send
/// their rows of C to the other GPUs this way, with no gather after the product. Throws what
/// gpulab::sgemm throws, and on such copies.
void sgemm_with_copies(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                       const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc, std::span<float* const> copies,
                       cudaStream_t stream, SgemmPrecision precision = SgemmPrecision::fp32);
/// The few-rows path in one launch (g.m ≤ kFewRows): k split over `ranks` blocks of a cluster
/// (1 to few_rows_max_cluster_ranks()).
void run_few_rows_cluster(const GemmArgs& g, int ranks, cudaStream_t stream);

/// Outputs of at most this many columns and enough rows take the few-columns path: A read once,
/// a warp a row.
constexpr int kFewCols = 8;
/// Whether the library takes the few-columns path for this shape on the current device.
bool few_cols_fits(const GemmArgs& g);
/// The few-columns path (g.n ≤ kFewCols, any m).
void run_few_cols(const GemmArgs& g, cudaStream_t stream);

/// The last rows and columns of C that the library leaves out of its tiles, for the few-rows and
/// few-columns paths. A last row (or column) of tiles that holds 1 to 8 rows costs as much as a
/// full one, and can cost a whole wave: 4097³ is 33 × 33 tiles of 128 × 128 (5 waves of 264 on
/// 132 SMs), its first 4096 rows 32 × 33 (4 waves). Taken only where it saves a wave, and k ≥ 64.
struct Fringe {
  int rows = 0, cols = 0;
};
Fringe fringe_of(const GemmArgs& g);

/// Split-K's second step: c = alpha·(the slices' partial sums added in a fixed order) + beta·c.
/// `after_tiles`: the kernel that wrote `partials` uses shared memory (the tiled paths), not the
/// few-rows kernel.
void add_slices_of(const GemmArgs& g, int splits, const float* partials, cudaStream_t stream, bool after_tiles);
/// `splits` cut to what 256 MiB of partial sums allows, and to [1, 65535].
int capped_splits(const GemmArgs& g, std::size_t splits);

/// The SMs of the current device (cached).
int sm_count();
/// Whether the current device launches clusters of blocks (compute capability 9.0 and newer).
bool cluster_launch();

/// The slices of split-K the library uses for this shape on the current device (1: none).
int split_count(const GemmArgs& g);
/// Split-K's rule for `tiles` output tiles: none where they fill the SMs or k < 2·min_slice, else
/// enough slices (of at least min_slice) for two blocks an SM, within capped_splits. A rule of
/// the shape and the SM count, so results are reproducible per device.
int splits_for(const GemmArgs& g, std::size_t tiles, int min_slice);

/// Rung 7: the warp-tiled kernel with plain loads, one slice at a time (128 × 64 tiles).
void warp_tiles_plain(const GemmArgs& g, cudaStream_t stream);
/// Rung 8: the same tiles fed by cp.async, three slices in flight (the library's default).
void warp_tiles_pipelined(const GemmArgs& g, cudaStream_t stream);
/// Rung 9: 128 × 256 tiles, 16 × 8 a thread, A transposed, fragments double-buffered.
void big_tiles_fragments(const GemmArgs& g, cudaStream_t stream);
/// Rung 10: the same kernel fed by cp.async into 3 stages, A copied to its transposed places.
void big_tiles_staged(const GemmArgs& g, cudaStream_t stream);

/// The tensor-core form a precision takes.
enum class TensorForm { none, mma_sync, wgmma };
/// The library's choice for one family of GPUs, as CUB keeps a policy per architecture: the
/// tensor-core form of SgemmPrecision::tf32 (none: refused) and of fp32_tensor (none: the FP32
/// path). A row holds from its compute capability up to the next row's.
struct SgemmPolicy {
  int from_capability;
  std::string_view family;
  TensorForm tf32, fp32_tensor;
  bool tf32_vendor = false;  // tf32 takes cuBLAS's TF32 GEMM where vendor_takes_tf32 says (measured there)
};
/// The policy of the family of `capability` (major·10 + minor).
const SgemmPolicy& sgemm_policy(int capability);
/// The policy of the current device (its treated-as family where one is set).
const SgemmPolicy& current_sgemm_policy();

/// Whether this device runs the wgmma paths (compute capability 9.0: sm_90a code runs nowhere else).
bool wgmma_supported();
/// Whether this device has TF32 tensor cores for mma.sync (compute capability 8.0 and newer).
bool mma_tf32_supported();
/// 3xTF32 on mma.sync (sgemm_mma.cu): a 128 × 128 tile a block, the operands split as the tiles
/// are staged. False, with nothing enqueued, where gpulab's pool cannot hold the m + n scales;
/// throws where !mma_tf32_supported().
bool mma_tf32x3(const GemmArgs& g, cudaStream_t stream);
/// The same with one TF32 product: TF32 accuracy.
bool mma_tf32(const GemmArgs& g, cudaStream_t stream);
/// a_rows[0, m) = each row of A's largest |x| and a_rows[m, m + n) each column of B's, as bits
/// (sgemm_scales.cuh), for the tensor-core paths' scales; zeros where k = 0.
void find_operand_maxima(const GemmArgs& g, unsigned* a_rows, cudaStream_t stream);
/// 3xTF32 on wgmma fed by TMA (sgemm_wgmma.cu): the operands split once into scratch memory, then a
/// 128 × 128 tile a block, k split where the tiles are too few. False, with nothing enqueued, where
/// gpulab's pool cannot hold the split operands; throws where !wgmma_supported().
bool wgmma_tf32x3(const GemmArgs& g, cudaStream_t stream);
/// A path the GPU may skip: its kernels run only where (*count > threshold) == when_above, so that a
/// choice made on the GPU (the guarded Ozaki scheme's fallback) needs no wait; a null count: always.
struct DeviceGate {
  const int* count = nullptr;
  int threshold = 0;
  bool when_above = true;
#ifdef __CUDACC__
  __device__ bool open() const { return count == nullptr || (*count > threshold) == when_above; }
#endif
};
/// wgmma_tf32x3 behind a gate (k never split): false, with nothing enqueued, where gpulab's pool
/// cannot hold the split operands.
bool wgmma_tf32x3_gated(const GemmArgs& g, cudaStream_t stream, DeviceGate gate);
/// The same with one TF32 product (big·big): TF32 accuracy.
bool wgmma_tf32(const GemmArgs& g, cudaStream_t stream);
/// TF32 on 128 × 256 tiles in clusters of two blocks down M, which share each slice of Bᵀ by TMA
/// multicast: half the bytes from L2 a product of wgmma_tf32's tiles.
bool wgmma_tf32_wide(const GemmArgs& g, cudaStream_t stream);
/// Whether tf32 takes cuBLAS's TF32 GEMM for these `batch` members where the policy has tf32_vendor:
/// every product but those of rows off 16-byte boundaries, or of A stored transposed with B as
/// stored, large enough for gpulab's own kernels to be faster there, and those cuBLAS's int leading
/// dimensions or its C's copies (sgemm_with_copies) cannot take.
bool vendor_takes_tf32(const GemmArgs& g, std::size_t batch);
/// Whether the process has cuBLAS to take them (sgemm_vendor.cpp opens it on first use).
bool vendor_tf32_found();
/// Whether gpulab::sgemm gives a tf32 call of these `batch` members to cuBLAS on the current device:
/// its family's policy has tf32_vendor, cuBLAS opens, and vendor_takes_tf32 says so.
bool tf32_through_vendor(const GemmArgs& g, std::size_t batch);
/// g's `batch` members (g.stride_*) through cuBLAS's TF32 GEMM on `stream` (where
/// tf32_through_vendor).
void vendor_tf32(const GemmArgs& g, std::size_t batch, cudaStream_t stream);
/// Whether gpulab::sgemm takes the tensor cores for this shape when the precision (tf32: one TF32
/// product; else fp32_tensor's three) and the device's policy let it.
bool takes_tensor_cores(const GemmArgs& g, bool tf32);

/// Whether fp32_tensor on Hopper takes the guarded Ozaki scheme (sgemm_ozaki.hpp) rather than 3xTF32:
/// any form, no copies of C, and a product large enough for it to be faster (measured).
bool takes_ozaki(const GemmArgs& g);

/// Whether 16-byte loads may be used on the rows of a row-major matrix with this leading
/// dimension (elements) starting at p.
bool rows_aligned16(const float* p, std::size_t ld);
/// Both A's and B's rows (the warp-tiled kernel's 16-byte copies).
bool vector_rows(const GemmArgs& g);
/// The largest copy to 16-byte rows (the pool keeps what it held). 256 MiB left 8192×8192×8193 on
/// 4-byte copies (A's copy is 256.06 MiB): 26.9 ms, 0.84× cuBLAS, against 23.5 ms with 16-byte rows.
constexpr std::size_t kRealignMaxBytes = std::size_t{1} << 30;
/// Whether gpulab::sgemm first copies A or B (whichever is not vector_rows) to 16-byte rows: a
/// tiled product large enough for the copies to pay (sgemm.cu, realign_rows).
bool realigns_rows(const GemmArgs& g);

}  // namespace gpulab::sgemm_detail
