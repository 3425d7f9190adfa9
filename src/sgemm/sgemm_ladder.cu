// The SGEMM ladder's table (sgemm_ladder.hpp): launchers for the rungs of sgemm_kernels.cuh, the
// library's paths (sgemm_simt.cu, sgemm_mma.cu, sgemm_wgmma.cu) and cuBLAS.
#include "core/cublas_handle.hpp"
#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "sgemm/sgemm_kernels.cuh"
#include "sgemm/sgemm_ladder.hpp"
#include "sgemm/sgemm_ozaki.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/sgemm.hpp>

#include <algorithm>
#include <string>

namespace gpulab {
namespace {

using namespace sgemm_ladder;
using sgemm_detail::rows_aligned16;

bool empty(const GemmArgs& g) { return g.m == 0 || g.n == 0; }

/// x across `x_side` in tiles of `x_tile`, y across `y_side` (the kernels loop past gridDim.y).
dim3 grid_2d(int x_side, int x_tile, int y_side, int y_tile) {
  return tile_grid(static_cast<std::size_t>(x_side), static_cast<std::size_t>(x_tile), static_cast<std::size_t>(y_side),
                   static_cast<std::size_t>(y_tile), "sgemm");
}

void run_naive(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  launch("sgemm_naive", thread_per_element<false>, {grid_2d(g.m, 32, g.n, 32), dim3(32, 32)}, s, g)
      .work([] { return std::string("a thread per element, threadIdx.x down the rows"); });
}
void run_coalesced(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  launch("sgemm_coalesced", thread_per_element<true>, {grid_2d(g.n, 32, g.m, 32), dim3(32, 32)}, s, g)
      .work([] { return std::string("a thread per element, threadIdx.x across the columns"); });
}
void run_shared_tiles(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  launch("sgemm_shared_tiles", shared_tiles, {grid_2d(g.n, 32, g.m, 32), dim3(32, 32)}, s, g)
      .work([] { return std::string("a 32x32 tile, a thread per element"); });
}
void run_blocked_1d(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  launch("sgemm_register_1d", blocked_1d, {grid_2d(g.n, k1dTile, g.m, k1dTile), k1dThreads}, s, g)
      .work([] { return std::string("a 64x64 tile, 8 elements per thread"); });
}
void run_blocked_2d(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  launch("sgemm_register_2d", blocked_2d, {grid_2d(g.n, k2dTile, g.m, k2dTile), k2dThreads}, s, g)
      .work([] { return std::string("a 128x128 tile, 8x8 elements per thread"); });
}
void run_vectorized(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  launch("sgemm_vectorized", vectorized, {grid_2d(g.n, k2dTile, g.m, k2dTile), k2dThreads}, s, g)
      .work([] { return std::string("a 128x128 tile, 8x8 elements per thread, float4 loads"); });
}
void run_warp_tiles(const GemmArgs& g, cudaStream_t s) { sgemm_detail::warp_tiles_plain(g, s); }
void run_pipelined(const GemmArgs& g, cudaStream_t s) { sgemm_detail::warp_tiles_pipelined(g, s); }
void run_big_tiles(const GemmArgs& g, cudaStream_t s) { sgemm_detail::big_tiles_fragments(g, s); }
void run_staged(const GemmArgs& g, cudaStream_t s) { sgemm_detail::big_tiles_staged(g, s); }
template <SgemmPrecision kPrecision>
void run_library(const GemmArgs& g, cudaStream_t s) {
  sgemm_strided_batched(op_of(g.a_transposed), op_of(g.b_transposed), g.m, g.n, g.k, g.alpha, g.a, g.lda, g.stride_a, g.b, g.ldb, g.stride_b,
                        g.beta, g.c, g.ldc, g.stride_c, static_cast<std::size_t>(g.batch), s, kPrecision);
}
/// A tensor-core path alone: its scratch must fit.
template <bool (*kPath)(const GemmArgs&, cudaStream_t)>
void run_tensor_path(const GemmArgs& g, cudaStream_t s) {
  if (!kPath(g, s)) throw OutOfMemoryError("sgemm tensor cores: too little device memory for the scales or split operands");
}

template <int kModuli, sgemm_ozaki::Products kBy = sgemm_ozaki::Products::cublas>
void run_ozaki(const GemmArgs& g, cudaStream_t s) {
  sgemm_ozaki::run(g, s, kModuli, kBy);
}

void run_ozaki_guarded(const GemmArgs& g, cudaStream_t s) {
  if (!sgemm_ozaki::guarded_product(g, s)) throw OutOfMemoryError("sgemm ozaki: too little device memory for the residues and products");
}

/// A leading dimension as cuBLAS takes it (an int, at least 1).
int blas_ld(std::size_t ld) {
  if (ld > static_cast<std::size_t>(INT_MAX)) throw Error("cuBLAS takes int leading dimensions: " + std::to_string(ld));
  return std::max(1, static_cast<int>(ld));
}

// cuBLAS is column-major: row-major C (m × n, ldc) is column-major Cᵀ (n × m), and Cᵀ = op(B)ᵀ·op(A)ᵀ.
// An operand as stored is, read column-major, its own transpose (CUBLAS_OP_N gives op(X)ᵀ); one
// stored transposed is, read column-major, op(X) itself (CUBLAS_OP_T gives op(X)ᵀ).
cublasOperation_t blas_op(bool transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

/// A member stride as cuBLAS takes it (long long).
long long blas_stride(std::size_t stride) { return static_cast<long long>(stride); }

void run_cublas_tf32(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  if (g.batch > 1) {
    check_cublas(cublasGemmStridedBatchedEx(cublas_on(s), blas_op(g.b_transposed), blas_op(g.a_transposed), g.n, g.m, g.k, &g.alpha, g.b,
                                            CUDA_R_32F, blas_ld(g.ldb), blas_stride(g.stride_b), g.a, CUDA_R_32F, blas_ld(g.lda),
                                            blas_stride(g.stride_a), &g.beta, g.c, CUDA_R_32F, blas_ld(g.ldc), blas_stride(g.stride_c),
                                            g.batch, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx (TF32)");
    return;
  }
  check_cublas(cublasGemmEx(cublas_on(s), blas_op(g.b_transposed), blas_op(g.a_transposed), g.n, g.m, g.k, &g.alpha, g.b, CUDA_R_32F,
                            blas_ld(g.ldb), g.a, CUDA_R_32F, blas_ld(g.lda), &g.beta, g.c, CUDA_R_32F, blas_ld(g.ldc),
                            CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx (TF32)");
}
/// cublasSgemm with the handle's default math: FP32 on the CUDA cores (what PyTorch calls with
/// allow_tf32 off).
void run_cublas(const GemmArgs& g, cudaStream_t s) {
  if (empty(g)) return;
  if (g.batch > 1) {
    check_cublas(cublasSgemmStridedBatched(cublas_on(s), blas_op(g.b_transposed), blas_op(g.a_transposed), g.n, g.m, g.k, &g.alpha, g.b,
                                           blas_ld(g.ldb), blas_stride(g.stride_b), g.a, blas_ld(g.lda), blas_stride(g.stride_a), &g.beta,
                                           g.c, blas_ld(g.ldc), blas_stride(g.stride_c), g.batch),
                 "cublasSgemmStridedBatched");
    return;
  }
  check_cublas(cublasSgemm(cublas_on(s), blas_op(g.b_transposed), blas_op(g.a_transposed), g.n, g.m, g.k, &g.alpha, g.b, blas_ld(g.ldb),
                           g.a, blas_ld(g.lda), &g.beta, g.c, blas_ld(g.ldc)),
               "cublasSgemm");
}

/// What a rung takes beyond one product of operands as stored: kEveryForm, operands stored
/// transposed (`bench sgemm --forms`); kBatches, a strided batch (`--batch`) as one call.
enum Takes : unsigned { kAsStored = 0, kEveryForm = 1, kBatches = 2 };
/// The tensor cores a rung of this arithmetic runs on, and how many of their products make one FP32
/// product: judged by their own ceiling. Not the library's tensor rows, which take the FP32 path on
/// the shapes where the tensor cores do not pay (no one ceiling applies).
/// The guarded Ozaki rung is held to fp32_tensor's bound (tf32x3) but runs 7 INT8 products (and
/// the guard's quarter of one, not counted) where the guard holds.
constexpr TensorWork tensor_work(std::string_view name, SgemmMath math) {
  if (name.starts_with("library")) return {};
  if (name == "ozaki2_guarded") return {TensorUnit::int8, 7};
  switch (math) {
    case SgemmMath::tf32x3: return {TensorUnit::tf32, 3};
    case SgemmMath::tf32: return {TensorUnit::tf32, 1};
    case SgemmMath::ozaki8: return {TensorUnit::int8, 8};
    case SgemmMath::ozaki7: return {TensorUnit::int8, 7};
    default: return {};
  }
}

constexpr SgemmRung row(std::string_view name, std::string_view adds, std::string_view claims,
                        void (*run)(const GemmArgs&, cudaStream_t), Role role = Role::rung,
                        SgemmMath math = SgemmMath::fp32, bool aligned = false, GpuNeeds needs = {}, unsigned takes = kAsStored) {
  return {{name, adds, role, false, math != SgemmMath::fp32, claims, needs, tensor_work(name, math)},
          {run, math, aligned, (takes & kEveryForm) != 0, (takes & kBatches) != 0}};
}

// What the tensor-core rungs need of the GPU beyond sm_75 (the harness skips them elsewhere).
constexpr GpuNeeds kTf32Mma{80, false, "TF32 mma.sync"};
constexpr GpuNeeds kWgmma{90, true, "wgmma, TMA"};

// Read top to bottom: rungs 1-6 in sgemm_kernels.cuh, 7-11 in sgemm_simt.cu, the tensor-core rungs in
// sgemm_mma.cu and sgemm_wgmma.cu. Each line: name, what it adds, the counters that says it changes
// (`gpulab profile`), launcher, role, math.
constexpr SgemmRung kRungs[] = {
    row("naive", "a thread per element of C, threadIdx.x down the rows: A and C accessed a row apart", "load_sectors store_sectors", run_naive),
    row("coalesced", "threadIdx.x across the columns: B and C coalesced, A broadcast", "load_sectors global_loads", run_coalesced),
    row("shared_tiles", "32x32 tiles of A and B in shared memory: each element loaded once per block, not 32 times", "global_loads",
        run_shared_tiles),
    row("register_1d", "8 elements of a column per thread: a B value in a register serves 8 FMAs", "instructions fma", run_blocked_1d),
    row("register_2d", "8x8 elements per thread, 128x128 tiles: 8+8 shared loads feed 64 FMAs", "instructions fma registers", run_blocked_2d),
    row("vectorized", "float4 global loads, A stored transposed: 4 shared float4 loads per 64 FMAs; float4 stores", "global_loads instructions",
        run_vectorized, Role::rung, SgemmMath::fp32, true),
    row("warp_tiles", "128x64 tiles, A row-major in shared memory; lanes 4x8 over 4x4 sub-tiles: broadcast, conflict-free loads", "bank_conflicts",
        run_warp_tiles),
    row("pipelined", "cp.async: 3 slices in flight, copies overlap the FMAs, no staging registers", "issue registers", run_pipelined),
    row("fragments",
        "128x256 tiles, 16x8 a thread, A transposed: 6 shared loads per 128 FMAs; next step's fragments and slice in flight; "
        "the FMAs two rows of A at a time",
        "instructions issue", run_big_tiles, Role::rung, SgemmMath::fp32, false, {}, kEveryForm),
    row("staged",
        "cp.async into 3 stages, each of A's values copied (4 bytes) to its transposed place: no staging registers; "
        "whole tiles copied without a test; the barrier a slice early",
        "issue registers", run_staged, Role::rung, SgemmMath::fp32, false, {}, kEveryForm),
    row("library", "gpulab::sgemm: tiles measured per shape and device; split-K (fixed order) where tiles leave SMs idle", "fma",
        run_library<SgemmPrecision::fp32>, Role::library, SgemmMath::fp32, false, {}, kEveryForm | kBatches),
    row("tc_3xtf32", "TENSOR CORES: FP32 accuracy from 3 TF32 products (big*big + big*small + small*big), mma.sync", "fma instructions",
        run_tensor_path<sgemm_detail::mma_tf32x3>, Role::rung, SgemmMath::tf32x3, false, kTf32Mma),
    row("wgmma_3xtf32", "operands split once; TMA into swizzled stages, 2 warpgroups of wgmma, a fresh accumulator a 32-deep slice",
        "instructions fma", run_tensor_path<sgemm_detail::wgmma_tf32x3>, Role::rung, SgemmMath::tf32x3, false, kWgmma, kEveryForm),
    row("ozaki2_int8", "Ozaki scheme II: rows and columns scaled to integers, residues mod 8 moduli, INT8 GEMMs (cuBLAS), CRT",
        "fma instructions", run_ozaki<8>, Role::rung, SgemmMath::ozaki8),
    row("ozaki2_int8_7", "7 moduli, not 8: one INT8 product less, each row's and column's norm kept to 27 bits, not 31", "fma",
        run_ozaki<7>, Role::rung, SgemmMath::ozaki7),
    row("ozaki2_wgmma", "the INT8 products on gpulab's own wgmma GEMM (TMA, clusters of two): each modulus's sums reduced mod m in "
        "the epilogue, a byte to the CRT, not an int32", "fma", run_ozaki<7, sgemm_ozaki::Products::wgmma>, Role::rung, SgemmMath::ozaki7,
        false, kWgmma),
    row("ozaki2_guarded", "fp32_tensor's bound proved element by element: one INT8 product more, of |A| and |B| rounded down, bounds "
        "|A||B| from below; elements it cannot clear computed again in FP32 (few tiles) or 3xTF32 over C (many)", "fma", run_ozaki_guarded, Role::rung, SgemmMath::tf32x3, false,
        kWgmma),
    row("library_fp32_tensor", "gpulab::sgemm with SgemmPrecision::fp32_tensor: on Hopper ozaki2_guarded where it pays, else wgmma_3xtf32; "
        "tc_3xtf32 (A100) where it pays; else the FP32 library",
        "fma", run_library<SgemmPrecision::fp32_tensor>, Role::rung, SgemmMath::tf32x3, false, {}, kEveryForm | kBatches),
    row("wgmma_tf32", "TF32 (NOT FP32 accuracy): one product, big*big, accumulated in the tensor cores", "fma",
        run_tensor_path<sgemm_detail::wgmma_tf32>, Role::rung, SgemmMath::tf32, false, kWgmma, kEveryForm),
    row("wgmma_tf32_wide", "128x256 tiles in clusters of two down M that share B's slices by TMA multicast: half the bytes from L2 a product",
        "l2_read", run_tensor_path<sgemm_detail::wgmma_tf32_wide>, Role::rung, SgemmMath::tf32, false, kWgmma, kEveryForm),
    row("library_tf32", "gpulab::sgemm with SgemmPrecision::tf32: on Hopper cuBLAS TF32, but wgmma_tf32_wide where that is faster (TN, unaligned rows); mma.sync (Ampere, Ada) where it pays; else the FP32 library",
        "fma", run_library<SgemmPrecision::tf32>, Role::rung, SgemmMath::tf32, false, {80, false, "TF32 tensor cores"}, kEveryForm | kBatches),
    row("cublas_tf32", "TENSOR CORES, vendor: cuBLAS with TF32 (10-bit mantissas: NOT FP32 accuracy)", "fma instructions", run_cublas_tf32,
        Role::rung, SgemmMath::tf32, false, {80, false, "TF32 tensor cores"}, kEveryForm | kBatches),
    row("cublasSgemm", "the vendor library (cuBLAS), FP32 on the CUDA cores", "fma", run_cublas, Role::vendor, SgemmMath::fp32, false, {},
        kEveryForm | kBatches),
};

}  // namespace

std::span<const SgemmRung> sgemm_rungs() { return kRungs; }

}  // namespace gpulab
