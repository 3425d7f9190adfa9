// The Ozaki scheme II rungs (sgemm_ozaki.hpp): scale, residues, the INT8 products — one batched
// cuBLAS GEMM per chunk of k (every modulus in one call), or gpulab's own on Hopper
// (sgemm_ozaki_products.cu) — and the Chinese remainder theorem.
#include "core/cublas_handle.hpp"
#include "lib/arith.hpp"
#include "lib/block.cuh"
#include "lib/launch.cuh"
#include "lib/launch_log.hpp"
#include "lib/launch_limits.hpp"
#include "lib/stream_scratch.hpp"
#include "sgemm/sgemm_ozaki.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>

#include <math_constants.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace gpulab::sgemm_ozaki {
namespace {

using sgemm_device::GemmArgs;

/// k in chunks of this depth: |Σ residue·residue| ≤ 2^16·2^14 = 2^30, so the int32 sums never wrap.
constexpr int kChunk = 1 << 16;
/// Rows of the residue matrices padded to this many int8 (the INT8 GEMM's alignment).
constexpr std::size_t kDepthAlign = 16;
/// The norms' partial sums: each covers this many values of a row of A (a column of B).
constexpr int kNormChunk = 4096;


/// The shift of a row or column that holds an Inf or a NaN: its elements of C are NaN.
constexpr int kNotFinite = -(1 << 30);

/// The shift that scales a row (column) of 2-norm `norm` to at most 2^Q: Q − e, or Q − e + 1 where
/// norm = 2^(e−1) exactly. 0 for a zero row (its residues are all zero).
template <int N>
__device__ __forceinline__ int norm_shift(double sum_squares) {
  constexpr int kNormBits = norm_bits(N);
  if (!isfinite(sum_squares)) return kNotFinite;
  if (sum_squares == 0) return 0;
  const double norm = sqrt(sum_squares);
  int e = 0;
  const double f = frexp(norm, &e);  // norm = f·2^e, f in [0.5, 1)
  return kNormBits - e + (f == 0.5 ? 1 : 0);
}

/// x·2^e, as ldexp gives it, by one multiply where 2^e is a normal double (ldexp's checks cost the
/// residue and reconstruction kernels, which are bound by their instructions, a fifth of them).
__device__ __forceinline__ double times_power_of_two(double x, int e) {
  if (e < -1022 || e > 1023) return ldexp(x, e);
  return x * __longlong_as_double(static_cast<long long>(e + 1023) << 52);
}

/// The scaled integers of N moduli: |x| ≤ 2^Q fits 32 bits where Q ≤ 30 (7 moduli), else 64.
template <int N>
using ScaledInt = std::conditional_t<(norm_bits(N) <= 30), std::int32_t, std::int64_t>;

/// round(v·2^shift) as an integer (|·| ≤ 2^Q); 0 in a row or column that is not finite. Where 2^shift
/// is a normal float and Q ≤ 30, in FP32: v·2^shift is exact (or below 2^−126, which rounds to 0
/// either way) and rounds as in FP64, at a fraction of FP64's conversions.
template <int N>
__device__ __forceinline__ ScaledInt<N> scaled_integer(float v, int shift) {
  if (shift == kNotFinite) return 0;
  if constexpr (std::is_same_v<ScaledInt<N>, std::int32_t>) {
    if (shift >= -126 && shift <= 127) return __float2int_rn(v * __int_as_float((shift + 127) << 23));
  }
  return static_cast<ScaledInt<N>>(__double2ll_rn(times_power_of_two(static_cast<double>(v), shift)));
}

// ---- the norms, in a fixed order (results reproducible) --------------------------------------------

/// partial[chunk·rows + i] = Σ a[i][p]² over the chunk's p: a block a (row, chunk).
__global__ void row_sum_squares(const float* a, std::size_t lda, int rows, int cols, int chunks, double* partial) {
  const int row = static_cast<int>(blockIdx.x);
  const float* r = a + static_cast<std::size_t>(row) * lda;
  for (int chunk = static_cast<int>(blockIdx.y); chunk < chunks; chunk += static_cast<int>(gridDim.y)) {
    const int end = static_cast<int>(min(static_cast<long long>(cols), (chunk + 1LL) * kNormChunk));  // (no int overflow near 2^31)
    double sum = 0;
    for (int p = chunk * kNormChunk + static_cast<int>(threadIdx.x); p < end; p += static_cast<int>(blockDim.x)) {
      const double v = r[p];
      sum += v * v;
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0) partial[static_cast<std::size_t>(chunk) * rows + row] = sum;
    __syncthreads();  // block_sum's scratch free for the next chunk
  }
}

/// partial[chunk·cols + j] = Σ b[p][j]² over the chunk's p: a block 32 columns × 8 row lanes.
__global__ void column_sum_squares(const float* b, std::size_t ldb, int rows, int cols, int chunks, double* partial) {
  const int col = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);
  __shared__ double sums[8][32];
  for (int chunk = static_cast<int>(blockIdx.y); chunk < chunks; chunk += static_cast<int>(gridDim.y)) {
    const int end = static_cast<int>(min(static_cast<long long>(rows), (chunk + 1LL) * kNormChunk));
    double sum = 0;
    if (col < cols)
      for (int p = chunk * kNormChunk + static_cast<int>(threadIdx.y); p < end; p += 8) {
        const double v = b[static_cast<std::size_t>(p) * ldb + col];
        sum += v * v;
      }
    sums[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && col < cols) {
      double total = 0;
      for (int y = 0; y < 8; ++y) total += sums[y][threadIdx.x];
      partial[static_cast<std::size_t>(chunk) * cols + col] = total;
    }
    __syncthreads();
  }
}

/// shift[i] from the chunks' partial sums, added in chunk order.
template <int N>
__global__ void shifts_of(const double* partial, int chunks, int count, int* shift) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < count; i += static_cast<int>(gridDim.x * blockDim.x)) {
    double sum = 0;
    for (int c = 0; c < chunks; ++c) sum += partial[static_cast<std::size_t>(c) * count + i];
    shift[i] = norm_shift<N>(sum);
  }
}

// ---- residues ------------------------------------------------------------------------------------

/// A's residues: plane l (rows × depth int8, row-major) holds round(a·2^shift[i]) mod m_l; the
/// padding past k is zero. A thread 4 consecutive p (one 4-byte store a plane); x along a row, y
/// down the rows (looping past gridDim.y).
template <int N>
__global__ void row_residues(const float* a, std::size_t lda, int rows, int cols, std::size_t depth, const int* shift,
                             std::int8_t* out) {
  const std::size_t plane = static_cast<std::size_t>(rows) * depth;
  const std::size_t p0 = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  if (p0 >= depth) return;
  for (std::size_t row = blockIdx.y; row < static_cast<std::size_t>(rows); row += gridDim.y) {
    const std::size_t q = (row * depth + p0) / 4;  // depth is a multiple of 4: no quad spans two rows
    const int s = shift[row];
    ScaledInt<N> x[4];
    for (int u = 0; u < 4; ++u) {
      const std::size_t p = p0 + u;
      x[u] = p < static_cast<std::size_t>(cols) ? scaled_integer<N>(a[row * lda + p], s) : 0;
    }
    each_index<N>([&](auto l) {
      reinterpret_cast<char4*>(out + l * plane)[q] = {symmetric_residue<N, l>(x[0]), symmetric_residue<N, l>(x[1]),
                                                       symmetric_residue<N, l>(x[2]), symmetric_residue<N, l>(x[3])};
    });
  }
}

/// B's residues, transposed (plane l: cols × depth, B's column j a row): 32 × 32 tiles of the scaled
/// integers through shared memory, read along B's rows (32 columns a warp) and written along k, a
/// thread 4 consecutive p of a column (one 4-byte store a plane; a warp 4 columns × 32 bytes).
template <int N>
__global__ void column_residues(const float* b, std::size_t ldb, int rows, int cols, std::size_t depth, const int* shift,
                                std::int8_t* out) {
  __shared__ ScaledInt<N> tile[32][33];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int col0 = static_cast<int>(blockIdx.x) * 32;
  const int s = col0 + tx < cols ? shift[col0 + tx] : kNotFinite;
  const std::size_t plane = static_cast<std::size_t>(cols) * depth;
  const int t = ty * 32 + tx, quad = t % 8, c = t / 8;  // the writer's 4 values: p = 4·quad … of column col0 + c
  for (std::size_t p0 = blockIdx.y * std::size_t{32}; p0 < depth; p0 += gridDim.y * std::size_t{32}) {
    for (int r = ty; r < 32; r += 8) {
      const std::size_t p = p0 + r;
      tile[r][tx] = p < static_cast<std::size_t>(rows) && col0 + tx < cols ? scaled_integer<N>(b[p * ldb + col0 + tx], s) : 0;
    }
    __syncthreads();
    // (4·quad + u)·33 + c lands in bank 4·quad + u + c: the warp's 8 quads × 4 columns are conflict-free
    const ScaledInt<N> x[4] = {tile[4 * quad][c], tile[4 * quad + 1][c], tile[4 * quad + 2][c], tile[4 * quad + 3][c]};
    const std::size_t p = p0 + 4 * quad;  // depth is a multiple of 16: the quad lies in the row
    if (col0 + c < cols && p < depth) {
      const std::size_t q = (static_cast<std::size_t>(col0 + c) * depth + p) / 4;
      each_index<N>([&](auto l) {
        reinterpret_cast<char4*>(out + l * plane)[q] = {symmetric_residue<N, l>(x[0]), symmetric_residue<N, l>(x[1]),
                                                         symmetric_residue<N, l>(x[2]), symmetric_residue<N, l>(x[3])};
      });
    }
    __syncthreads();
  }
}

// ---- the reconstruction --------------------------------------------------------------------------

/// The residues of ĉ from cuBLAS's products, an element a thread: the int32 sums of each chunk of
/// k, a plane a chunk and a modulus (m × n each), reduced and added.
struct ChunkSums {
  static constexpr int kPer = 1;
  const std::int32_t* products;
  int chunks;
  int n;
  std::size_t elements;  // m·n: a plane
  template <int N>
  __device__ void residues(int i, int j, std::uint32_t (&r)[kPer][N]) const {
    const std::size_t e = static_cast<std::size_t>(i) * n + j;
    each_index<N>([&](auto l) { r[0][l] = 0; });
    for (int c = 0; c < chunks; ++c) {
      // Every modulus's product loaded before any is reduced: N loads in flight a thread, not one
      // (the reconstruction read 7.5 GB at ~1 TB/s with one: 8.6 ms of 63 at 16384³, H200).
      std::int32_t p[N];
      each_index<N>([&](auto l) { p[l] = products[(static_cast<std::size_t>(c) * N + l) * elements + e]; });
      each_index<N>([&](auto l) {
        constexpr std::uint32_t m = kModulus[l];
        // A product is at most 2^30 in magnitude (kChunk): + a multiple of m ≥ 2^30 makes it non-negative.
        constexpr std::uint32_t offset = m * ((1u << 30) / m + 1);
        r[0][l] += (static_cast<std::uint32_t>(p[l]) + offset) % m;
      });
    }
    each_index<N>([&](auto l) {
      constexpr std::uint32_t m = kModulus[l];
      r[0][l] %= m;
    });
  }
};

/// The residues of ĉ from gpulab's products (wgmma_products), 4 consecutive elements a thread: a
/// byte a modulus, already mod m, a 4-byte load a modulus (rows ld apart, a multiple of 16: the
/// bytes past n are padding).
struct ResidueBytes {
  static constexpr int kPer = 4;
  const std::uint8_t* bytes;
  std::size_t ld, plane;  // planes m·ld apart
  template <int N>
  __device__ void residues(int i, int j, std::uint32_t (&r)[kPer][N]) const {
    const std::uint8_t* p = bytes + static_cast<std::size_t>(i) * ld + j;
    std::uint32_t word[N];
    each_index<N>([&](auto l) { word[l] = *reinterpret_cast<const std::uint32_t*>(p + l * plane); });
#pragma unroll
    for (int u = 0; u < kPer; ++u) each_index<N>([&](auto l) { r[u][l] = word[l] >> 8 * u & 0xffu; });
  }
};

/// c[i][j] = alpha·2^−(sᵢ+tⱼ)·ĉᵢⱼ + beta·c[i][j], ĉᵢⱼ rebuilt from its residues (`source`, its kPer
/// consecutive elements a thread): x across a row's columns, y down the rows (looping past gridDim.y).
template <int N, class Source>
__global__ void reconstruct(Source source, GemmArgs g, const int* row_shift, const int* col_shift) {
  constexpr int kPer = Source::kPer;
  const int j0 = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * kPer;
  if (j0 >= g.n) return;
  for (int i = static_cast<int>(blockIdx.y); i < g.m; i += static_cast<int>(gridDim.y)) {
    std::uint32_t r[kPer][N];
    source.template residues<N>(i, j0, r);
    const int si = row_shift[i];
    float* out = g.c + static_cast<std::size_t>(i) * g.ldc;
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int j = j0 + u;
      if (j >= g.n) break;
      const int tj = col_shift[j];
      const double exact = from_residues<N>(r[u]);
      double v = si == kNotFinite || tj == kNotFinite ? CUDART_NAN : static_cast<double>(g.alpha) * times_power_of_two(exact, -(si + tj));
      if (g.beta != 0.f) v += static_cast<double>(g.beta) * static_cast<double>(out[j]);
      out[j] = static_cast<float>(v);
    }
  }
}

unsigned grid_for(std::size_t items, unsigned threads) {
  return static_cast<unsigned>(std::min<std::size_t>(ceil_div(std::max<std::size_t>(items, 1), threads), 65535u * 8));
}

template <int N>
void run_with(const GemmArgs& g, cudaStream_t stream, Products by) {
  if (g.m == 0 || g.n == 0) return;
  const std::size_t elements = static_cast<std::size_t>(g.m) * g.n;
  const std::size_t depth = align_up(static_cast<std::size_t>(g.k), kDepthAlign);
  const int chunks = static_cast<int>(ceil_div(depth, kChunk));
  const bool own = by == Products::wgmma;
  if (own && !sgemm_detail::wgmma_supported())  // before any launch or allocation (wgmma_products relies on it)
    throw Error("sgemm ozaki: gpulab's INT8 products need a GPU of compute capability 9.0 (sm_90a)");
  const std::size_t residue_ld = align_up(static_cast<std::size_t>(g.n), std::size_t{16});  // own: a byte a modulus and element
  const int norm_chunks = static_cast<int>(ceil_div(static_cast<std::size_t>(g.k), kNormChunk));
  const std::size_t a_plane = static_cast<std::size_t>(g.m) * depth, b_plane = static_cast<std::size_t>(g.n) * depth;
  // One allocation, freed in stream order after the reconstruction: the residues (int8, planes of
  // 16-byte rows), the products (cuBLAS's int32 sums, or gpulab's residues of them as bytes), the
  // norms' partial sums (double), the shifts (int).
  const std::size_t residue_bytes = N * (a_plane + b_plane);
  // (16-byte aligned: the partial sums after them are doubles, and 7 planes of an odd count are not)
  const std::size_t products_bytes = align_up(own ? std::size_t{N} * g.m * residue_ld : static_cast<std::size_t>(chunks) * N * elements * sizeof(std::int32_t), 16);
  const std::size_t partial_bytes = align_up(static_cast<std::size_t>(norm_chunks) * (g.m + g.n) * sizeof(double), 16);
  StreamScratch scratch(residue_bytes + products_bytes + partial_bytes + (static_cast<std::size_t>(g.m) + g.n) * sizeof(int), stream);
  auto* a_residues = scratch.as<std::int8_t>();
  std::int8_t* b_residues = a_residues + N * a_plane;
  auto* products = reinterpret_cast<std::int32_t*>(a_residues + residue_bytes);
  auto* partial = reinterpret_cast<double*>(reinterpret_cast<std::byte*>(products) + products_bytes);
  auto* row_shift = reinterpret_cast<int*>(reinterpret_cast<std::byte*>(partial) + partial_bytes);
  int* col_shift = row_shift + g.m;

  double* column_partial = partial + static_cast<std::size_t>(norm_chunks) * g.m;
  const auto n = static_cast<std::size_t>(g.n);

  // k = 0 copies and multiplies nothing: the shifts are 0, every residue sum 0, and the
  // reconstruction writes alpha·0 + beta·C.
  if (g.k > 0) {
    launch("sgemm_ozaki_row_norms", row_sum_squares, {dim3(checked_grid(g.m, "sgemm ozaki"), capped_grid_y(norm_chunks)), 256},
           stream, g.a, g.lda, g.m, g.k, norm_chunks, partial)
        .work([] { return std::string("sum of squares of A's rows, in chunks of 4096"); });
    launch("sgemm_ozaki_column_norms", column_sum_squares,
           {tile_grid(n, 32, static_cast<std::size_t>(norm_chunks), 1, "sgemm ozaki"), dim3(32, 8)}, stream, g.b, g.ldb, g.k, g.n,
           norm_chunks, column_partial)
        .work([] { return std::string("sum of squares of B's columns, in chunks of 4096"); });
  }
  launch("sgemm_ozaki_row_shifts", shifts_of<N>, {grid_for(g.m, 256), 256}, stream, static_cast<const double*>(partial), norm_chunks,
         g.m, row_shift);
  launch("sgemm_ozaki_column_shifts", shifts_of<N>, {grid_for(g.n, 256), 256}, stream, static_cast<const double*>(column_partial),
         norm_chunks, g.n, col_shift);
  if (g.k > 0) {
    launch("sgemm_ozaki_row_residues", row_residues<N>, {tile_grid(depth / 4, 256, static_cast<std::size_t>(g.m), 1, "sgemm ozaki residues"), 256},
           stream, g.a, g.lda, g.m, g.k, depth,
           static_cast<const int*>(row_shift), a_residues)
        .work([] { return std::string("A scaled and rounded, its residues as int8"); });
    launch("sgemm_ozaki_column_residues", column_residues<N>, {tile_grid(n, 32, depth, 32, "sgemm ozaki residues"), dim3(32, 8)},
           stream, g.b, g.ldb, g.k, g.n, depth, static_cast<const int*>(col_shift), b_residues)
        .work([] { return std::string("B scaled, rounded and transposed, its residues as int8"); });
  }

  auto grid = [&](int per) { return tile_grid(n, 256 * static_cast<std::size_t>(per), static_cast<std::size_t>(g.m), 1, "sgemm ozaki"); };
  const auto reconstruct_work = [] { return std::string("the Chinese remainder theorem (a 128-bit sum), scaled back, alpha and beta"); };
  if (own) {
    auto* residues = reinterpret_cast<std::uint8_t*>(products);
    wgmma_products(N, a_residues, b_residues, g.m, g.n, g.k, depth, residues, residue_ld, stream);
    launch("sgemm_ozaki_reconstruct", reconstruct<N, ResidueBytes>, {grid(ResidueBytes::kPer), 256}, stream,
           ResidueBytes{residues, residue_ld, static_cast<std::size_t>(g.m) * residue_ld}, g, static_cast<const int*>(row_shift),
           static_cast<const int*>(col_shift))
        .work(reconstruct_work);
    return;
  }
  // Row-major C (m × n) is column-major Cᵀ = B̂ᵀ·Â: B's residue planes (n × depth, k contiguous) as
  // the transposed operand, A's (m × depth) as the plain one — the TN form INT8 GEMMs want.
  const std::int32_t one = 1, zero = 0;
  for (int c = 0; c < chunks; ++c) {
    const std::size_t offset = static_cast<std::size_t>(c) * kChunk;
    const int kc = static_cast<int>(std::min<std::size_t>(kChunk, depth - offset));
    check_cublas(cublasGemmStridedBatchedEx(cublas_on(stream), CUBLAS_OP_T, CUBLAS_OP_N, g.n, g.m, kc, &one, b_residues + offset,
                                            CUDA_R_8I, static_cast<int>(depth), static_cast<long long>(b_plane), a_residues + offset,
                                            CUDA_R_8I, static_cast<int>(depth), static_cast<long long>(a_plane), &zero,
                                            products + static_cast<std::size_t>(c) * N * elements, CUDA_R_32I, g.n,
                                            static_cast<long long>(elements), N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx (INT8, the Ozaki scheme's products)");
    note_library_call("cublasGemmStridedBatchedEx", "cuBLAS INT8, a product a modulus, its kernels not listed", stream);
  }
  launch("sgemm_ozaki_reconstruct", reconstruct<N, ChunkSums>, {grid(ChunkSums::kPer), 256}, stream,
         ChunkSums{static_cast<const std::int32_t*>(products), chunks, g.n, elements}, g, static_cast<const int*>(row_shift),
         static_cast<const int*>(col_shift))
      .work(reconstruct_work);
}

}  // namespace

void run(const GemmArgs& g, cudaStream_t stream, int moduli, Products by) {
  switch (moduli) {
    case 7: return run_with<7>(g, stream, by);
    case 8: return run_with<8>(g, stream, by);
    default: throw Error("sgemm ozaki: 7 or 8 moduli, not " + std::to_string(moduli));
  }
}

}  // namespace gpulab::sgemm_ozaki
