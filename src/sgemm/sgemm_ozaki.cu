// The Ozaki scheme II (sgemm_ozaki.hpp): scale, residues, the INT8 products — the caller's GEMM of
// int32 sums a chunk of k (the lab's cuBLAS), or gpulab's own on Hopper (sgemm_ozaki_products.cu)
// — and the Chinese remainder theorem; for fp32_tensor, the guard and its FP32 fix-up.
#include "lib/arith.hpp"
#include "lib/block.cuh"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/stream_scratch.hpp"
#include "sgemm/sgemm_device.cuh"
#include "sgemm/sgemm_ozaki.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>

#include <math_constants.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace gpulab::sgemm_ozaki {
namespace {

using sgemm_device::GemmArgs;

/// Rows of the residue matrices padded to this many int8 (the INT8 GEMM's alignment).
constexpr std::size_t kDepthAlign = 16;
/// The norms' partial sums: each covers this many values of a line along the stored rows
/// (row_norms), or down the stored columns (column_norms: a finer chunk, so that the 128 blocks of
/// 4096 columns become 512 and keep enough loads in flight: 128 blocks took 43 us for 64 MB at
/// 4096³, 512 blocks 67 us for 256 MB at 8192³, H200).
constexpr int kNormChunk = 4096, kColumnNormChunk = 1024;


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

/// A chunk's share of what is known of a row (column): Σx², Σ|x| and the largest |x| as its bits.
struct NormPartial {
  double squares = 0, magnitudes = 0;
  unsigned max_bits = 0;
  __device__ void add(float x) {
    const double v = x;
    squares += v * v, magnitudes += fabs(v);
    max_bits = max(max_bits, __float_as_uint(x) & 0x7fffffffu);
  }
  __device__ void add(const NormPartial& other) {
    squares += other.squares, magnitudes += other.magnitudes, max_bits = max(max_bits, other.max_bits);
  }
  /// x[p·stride] for p = first, first + step, … below end, four loads in flight, then their sums in
  /// the same order (a load a step waited for each in turn: 2.1 TB/s at 8192³, H200). The zeros past
  /// the end add nothing.
  __device__ void add_every(const float* x, std::size_t stride, int first, int end, int step) {
    for (int p = first; p < end; p += 4 * step) {
      float v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = p + u * step < end ? x[static_cast<std::size_t>(p + u * step) * stride] : 0.f;
#pragma unroll
      for (int u = 0; u < 4; ++u) add(v[u]);
    }
  }
};

/// partial[chunk·rows + i] over the chunk's p of row i of A: a block a (row, chunk).
__global__ void row_norms(const float* a, std::size_t lda, int rows, int cols, int chunks, NormPartial* partial) {
  const int row = static_cast<int>(blockIdx.x);
  const float* r = a + static_cast<std::size_t>(row) * lda;
  for (int chunk = static_cast<int>(blockIdx.y); chunk < chunks; chunk += static_cast<int>(gridDim.y)) {
    const int end = static_cast<int>(min(static_cast<long long>(cols), (chunk + 1LL) * kNormChunk));  // (no int overflow near 2^31)
    NormPartial sum;
    sum.add_every(r, 1, chunk * kNormChunk + static_cast<int>(threadIdx.x), end, static_cast<int>(blockDim.x));
    sum.squares = block_sum(sum.squares);
    __syncthreads();  // block_sum's scratch free for the second sum
    sum.magnitudes = block_sum(sum.magnitudes);
    sum.max_bits = block_max_unsigned(sum.max_bits);
    if (threadIdx.x == 0) partial[static_cast<std::size_t>(chunk) * rows + row] = sum;
    __syncthreads();  // the scratch free for the next chunk
  }
}

/// Row lanes of column_norms' blocks.
constexpr int kColumnNormLanes = 8;

/// partial[chunk·cols + j] over the chunk's p (kColumnNormChunk of them) of column j of B: a block 32
/// columns × kColumnNormLanes row lanes, four loads in flight a thread.
__global__ void column_norms(const float* b, std::size_t ldb, int rows, int cols, int chunks, NormPartial* partial) {
  const int col = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);
  __shared__ NormPartial lanes[kColumnNormLanes][32];
  for (int chunk = static_cast<int>(blockIdx.y); chunk < chunks; chunk += static_cast<int>(gridDim.y)) {
    const int end = static_cast<int>(min(static_cast<long long>(rows), (chunk + 1LL) * kColumnNormChunk));
    NormPartial sum;
    if (col < cols) sum.add_every(b + col, ldb, chunk * kColumnNormChunk + static_cast<int>(threadIdx.y), end, kColumnNormLanes);
    lanes[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && col < cols) {
      NormPartial total;
      for (int y = 0; y < kColumnNormLanes; ++y) total.add(lanes[y][threadIdx.x]);
      partial[static_cast<std::size_t>(chunk) * cols + col] = total;
    }
    __syncthreads();
  }
}

/// facts[i] from the chunks' partial sums, added in chunk order.
template <int N>
__global__ void facts_of(const NormPartial* partial, int chunks, int count, int levels, LineFacts* facts) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < count; i += static_cast<int>(gridDim.x * blockDim.x)) {
    NormPartial sum;
    for (int c = 0; c < chunks; ++c) sum.add(partial[static_cast<std::size_t>(c) * count + i]);
    facts[i] = line_facts<N>(sum.squares, sum.magnitudes, __uint_as_float(sum.max_bits), levels);
  }
}

// ---- residues ----------------------------------------------------------------------------------

/// floor(|v|·2^−step), at most `levels`: v's entry in the guard's product (0 in a row or column that
/// is not finite). |v|·2^−step ≤ levels: exact in FP32 where 2^−step is a normal float, and below
/// 2^−126 it floors to 0 either way.
__device__ __forceinline__ std::int8_t guard_level(float v, const LineFacts& line, int levels) {
  if (line.shift == kNotFinite) return 0;
  const float scaled = line.step >= -126 && line.step <= 126 ? fabsf(v) * __int_as_float((127 - line.step) << 23)
                                                             : static_cast<float>(ldexp(fabs(static_cast<double>(v)), -line.step));
  return static_cast<std::int8_t>(min(static_cast<float>(levels), floorf(scaled)));
}

static_assert(kGuardStride == 4, "the residue kernels' threads take 4 consecutive p, the guard the first");

/// The residues of a thread's 4 consecutive scaled integers, one 4-byte store a plane: quad q of
/// each of N planes (`plane` bytes apart).
template <int N>
__device__ __forceinline__ void store_residues(std::int8_t* out, std::size_t plane, std::size_t q, const ScaledInt<N> (&x)[4]) {
  each_index<N>([&](auto l) {
    reinterpret_cast<char4*>(out + l * plane)[q] = {symmetric_residue<N, l>(x[0]), symmetric_residue<N, l>(x[1]),
                                                     symmetric_residue<N, l>(x[2]), symmetric_residue<N, l>(x[3])};
  });
}

/// Rows a block of row_residues takes in turn, the next one's values loaded while the residues of
/// this one are made and stored.
constexpr int kResidueSteps = 4;

/// A's residues: plane l (rows × depth int8, row-major) holds round(a·2^shift[i]) mod m_l; with
/// kGuard, `guard` (rows × guard_depth) the levels of every 4th p. The padding past k is zero. A
/// thread 4 consecutive p (one 4-byte store a plane); x along a row, y down the rows (looping past
/// gridDim.y, the next row's four values in flight while this one's residues are made).
template <int N, bool kGuard>
__global__ void row_residues(const float* a, std::size_t lda, int rows, int cols, std::size_t depth, const LineFacts* facts,
                             int levels, std::int8_t* out, std::int8_t* guard, std::size_t guard_depth) {
  const std::size_t plane = static_cast<std::size_t>(rows) * depth;
  const std::size_t p0 = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  if (p0 >= depth) return;
  // The four loads together, before any arithmetic (each waiting for the conversion before it was
  // four latencies in a row).
  const auto load = [&](std::size_t row, float (&v)[4]) {
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = p0 + u < static_cast<std::size_t>(cols) ? a[row * lda + p0 + u] : 0.f;
  };
  float v[4];
  if (blockIdx.y < static_cast<unsigned>(rows)) load(blockIdx.y, v);
  for (std::size_t row = blockIdx.y; row < static_cast<std::size_t>(rows); row += gridDim.y) {
    const std::size_t q = (row * depth + p0) / 4;  // depth is a multiple of 4: no quad spans two rows
    const LineFacts line = facts[row];
    ScaledInt<N> x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = scaled_integer<N>(v[u], line.shift);
    if constexpr (kGuard) guard[row * guard_depth + p0 / 4] = guard_level(v[0], line, levels);
    if (row + gridDim.y < static_cast<std::size_t>(rows)) load(row + gridDim.y, v);
    store_residues<N>(out, plane, q, x);
  }
}

/// The depth of column_residues' tiles: a warp writes each plane's 128 bytes of a column as one row.
/// (32-deep tiles, each a block, took 385 us at 8192³; four a block, the next loaded while one was
/// made, 297; these 300, with less code. row_residues takes 207: the partial rows were not the gap.
/// H200.)
constexpr int kColumnTileDepth = 128;

/// B's residues, transposed (plane l: cols × depth, B's column j a row): 128 × 32 tiles of the
/// scaled integers through shared memory, read along B's rows (32 columns a warp, rows ty, ty + 8, …
/// a thread, all its loads in flight together) and written along k: a warp columns ty, ty + 8, …, a
/// lane 4 consecutive p of each (one 4-byte store a plane; a warp a column's 128 bytes); with kGuard,
/// the levels of the first of them in `guard` (cols × guard_depth). Blocks loop past gridDim.y.
template <int N, bool kGuard>
__global__ void column_residues(const float* b, std::size_t ldb, int rows, int cols, std::size_t depth, const LineFacts* facts,
                                int levels, std::int8_t* out, std::int8_t* guard, std::size_t guard_depth) {
  constexpr int kDepth = kColumnTileDepth, kLoads = kDepth / 8;
  __shared__ ScaledInt<N> tile[kDepth][33];
  __shared__ std::int8_t guard_tile[kGuard ? kDepth / 4 : 1][33];  // rows 0, 4, 8, … of the tile
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int col0 = static_cast<int>(blockIdx.x) * 32;
  const LineFacts line = col0 + tx < cols ? facts[col0 + tx] : LineFacts{kNotFinite, 0, 0.f, 0.f};
  const std::size_t plane = static_cast<std::size_t>(cols) * depth;
  for (std::size_t p0 = blockIdx.y * std::size_t{kDepth}; p0 < depth; p0 += gridDim.y * std::size_t{kDepth}) {
    float v[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const std::size_t p = p0 + ty + 8 * u;
      v[u] = p < static_cast<std::size_t>(rows) && col0 + tx < cols ? b[p * ldb + col0 + tx] : 0.f;
    }
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const int r = ty + 8 * u;
      tile[r][tx] = scaled_integer<N>(v[u], line.shift);
      if constexpr (kGuard)
        if (r % 4 == 0) guard_tile[r / 4][tx] = guard_level(v[u], line, levels);
    }
    __syncthreads();
    const std::size_t p = p0 + 4 * tx;  // depth is a multiple of 16: the quad lies in the row
#pragma unroll
    for (int cc = 0; cc < 4; ++cc) {
      const int c = ty + 8 * cc;
      // (4·tx + u)·33 + c: 8 banks a warp, a 4-way conflict, small beside the 28 residues these make
      const ScaledInt<N> x[4] = {tile[4 * tx][c], tile[4 * tx + 1][c], tile[4 * tx + 2][c], tile[4 * tx + 3][c]};
      if (col0 + c < cols && p < depth) {
        store_residues<N>(out, plane, (static_cast<std::size_t>(col0 + c) * depth + p) / 4, x);
        if constexpr (kGuard) guard[static_cast<std::size_t>(col0 + c) * guard_depth + p / 4] = guard_tile[tx][c];
      }
    }
    __syncthreads();
  }
}

// ---- the reconstruction --------------------------------------------------------------------------

/// The residues of ĉ from cuBLAS's products, an element a thread: the int32 sums of each chunk of
/// k, a plane a chunk and a modulus (m × n each), reduced and added. (A source's `load` issues a row's
/// loads, `residues` takes their values: the reconstruction loads a row ahead.)
struct ChunkSums {
  static constexpr int kPer = 1;
  const std::int32_t* products;
  int chunks;
  int n;
  std::size_t elements;  // m·n: a plane
  template <int N>
  struct Row {
    std::uint32_t r[kPer][N];
  };
  template <int N>
  __device__ Row<N> load(int i, int j) const {
    const std::size_t e = static_cast<std::size_t>(i) * n + j;
    Row<N> row;
    each_index<N>([&](auto l) { row.r[0][l] = 0; });
    for (int c = 0; c < chunks; ++c) {
      // Every modulus's product loaded before any is reduced: N loads in flight a thread, not one
      // (the reconstruction read 7.5 GB at ~1 TB/s with one: 8.6 ms of 63 at 16384³, H200).
      std::int32_t p[N];
      each_index<N>([&](auto l) { p[l] = products[(static_cast<std::size_t>(c) * N + l) * elements + e]; });
      each_index<N>([&](auto l) { row.r[0][l] += sum_residue<l>(p[l]); });  // (a product is at most 2^30 in magnitude: kChunk)
    }
    each_index<N>([&](auto l) {
      constexpr std::uint32_t m = kModulus[l];
      row.r[0][l] %= m;
    });
    return row;
  }
  template <int N>
  __device__ static void residues(const Row<N>& row, std::uint32_t (&r)[kPer][N]) {
    each_index<N>([&](auto l) { r[0][l] = row.r[0][l]; });
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
  struct Row {
    std::uint32_t word[N];
  };
  template <int N>
  __device__ Row<N> load(int i, int j) const {
    const std::uint8_t* p = bytes + static_cast<std::size_t>(i) * ld + j;
    Row<N> row;
    each_index<N>([&](auto l) { row.word[l] = *reinterpret_cast<const std::uint32_t*>(p + l * plane); });
    return row;
  }
  template <int N>
  __device__ static void residues(const Row<N>& row, std::uint32_t (&r)[kPer][N]) {
#pragma unroll
    for (int u = 0; u < kPer; ++u) each_index<N>([&](auto l) { r[u][l] = row.word[l] >> 8 * u & 0xffu; });
  }
};

/// The guard's plane: a byte an element (rows ld apart, as ResidueBytes), its code from the guard's
/// product (wgmma_guard_product), then its verdict from guard_test, 1 where the guard holds; and a flag
/// a kFixTile × kFixTile tile of C, set where an element of the tile fails the guard, with their count.
struct GuardPlane {
  std::uint8_t* bytes = nullptr;
  std::size_t ld = 0;
  int* flags = nullptr;
  int tiles_n = 0;
  int* flagged = nullptr;  // how many tiles are flagged
};
constexpr int kFixTile = sgemm_device::k2dTile;

/// Rows of C a block of the reconstruction and of the guard's test takes: a thread's columns' facts
/// are loaded once for them (a row a block read every column's, 16 bytes, again for each of C's rows).
constexpr int kReconstructRows = 8;

/// A thread's 4 verdicts (a byte each, 1 where the guard holds) when all 4 hold.
constexpr std::uint32_t kQuadHolds = 0x01010101u;

/// The guard's test of every element, 4 consecutive a thread (as the reconstruction reads them; the
/// columns' facts loaded once for all its rows, the rows' codes and facts all loaded before any is
/// tested): each code replaced by its verdict (so that the reconstruction and the fix-up read a byte,
/// not test again), each tile holding one that fails flagged, and counted once. (In the guard
/// product's epilogue, one block an SM, the test cost twice this kernel: 460 us against 235 + 100 at
/// 8192³, H200.)
__global__ void guard_test(GemmArgs g, const LineFacts* rows, const LineFacts* cols, GuardPlane guard) {
  const int j0 = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (j0 >= g.n) return;
  LineFacts col[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) col[u] = j0 + u < g.n ? cols[j0 + u] : LineFacts{};
  for (int i0 = static_cast<int>(blockIdx.y) * kReconstructRows; i0 < g.m; i0 += static_cast<int>(gridDim.y) * kReconstructRows) {
    std::uint32_t codes[kReconstructRows];
    LineFacts row[kReconstructRows];
#pragma unroll
    for (int r = 0; r < kReconstructRows; ++r) {
      const int i = min(i0 + r, g.m - 1);  // (rows past m load row m − 1 again, and are not tested)
      codes[r] = *reinterpret_cast<const std::uint32_t*>(guard.bytes + static_cast<std::size_t>(i) * guard.ld + j0);
      row[r] = rows[i];
    }
#pragma unroll
    for (int r = 0; r < kReconstructRows; ++r) {
      const int i = i0 + r;
      if (i >= g.m) break;
      std::uint32_t verdicts = 0;
#pragma unroll
      for (int u = 0; u < 4; ++u)  // (| not ||: no branch)
        verdicts |= static_cast<std::uint32_t>((j0 + u >= g.n) | guard_holds(row[r], col[u], codes[r] >> 8 * u & 0xffu, g.k)) << 8 * u;
      *reinterpret_cast<std::uint32_t*>(guard.bytes + static_cast<std::size_t>(i) * guard.ld + j0) = verdicts;
      if (verdicts == kQuadHolds) continue;  // (the flags apart: most quads hold, and a branch an element cost a third)
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        if ((verdicts >> 8 * u & 0xffu) != 0) continue;
        int* flag = &guard.flags[i / kFixTile * guard.tiles_n + (j0 + u) / kFixTile];
        if (*flag == 0 && atomicExch(flag, 1) == 0) atomicAdd(guard.flagged, 1);
      }
    }
  }
}

/// c[i][j] = alpha·2^−(sᵢ+tⱼ)·ĉᵢⱼ + beta·c[i][j], ĉᵢⱼ rebuilt from its residues (`source`, its kPer
/// consecutive elements a thread): x across a row's columns, y down kReconstructRows rows at a time
/// (looping past gridDim.y), the next row's loads issued before this row's residues are rebuilt. With
/// kGuard, an element whose verdict is 0 is left as it is (for fp32_fix_up); nothing where `gate` is
/// closed.
template <int N, class Source, bool kGuard = false>
__global__ void reconstruct(Source source, GemmArgs g, const LineFacts* rows, const LineFacts* cols, GuardPlane guard,
                            sgemm_detail::DeviceGate gate) {
  constexpr int kPer = Source::kPer;
  if (!gate.open()) return;
  const int j0 = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * kPer;
  if (j0 >= g.n) return;
  // 2^−(s+t)·alpha as a column's 2^−t and a row's alpha·2^−s (NaN where a line is not finite): the
  // same bits, as ĉ·alpha is rounded once either way and the powers of two are exact (|s|, |t| < 200).
  const auto scale_of = [](int shift, double times) { return shift == kNotFinite ? CUDART_NAN : times_power_of_two(times, -shift); };
  double column_scale[kPer];
#pragma unroll
  for (int u = 0; u < kPer; ++u) column_scale[u] = j0 + u < g.n ? scale_of(cols[j0 + u].shift, 1.0) : 0.0;
  // A thread's 4 elements in one 16-byte store where they lie in one (a warp's 4-byte stores 16
  // bytes apart each touched 4 times the sectors).
  const bool quads = kPer == 4 && j0 + 3 < g.n && g.ldc % 4 == 0 && reinterpret_cast<std::uintptr_t>(g.c) % 16 == 0;
  struct Ahead {  // a row's loads, issued a row early
    typename Source::template Row<N> residues;
    std::uint32_t holds;
    int shift;
  };
  const auto load = [&](int i) {
    Ahead next{source.template load<N>(i, j0), 0, rows[i].shift};
    if constexpr (kGuard) next.holds = *reinterpret_cast<const std::uint32_t*>(guard.bytes + static_cast<std::size_t>(i) * guard.ld + j0);
    return next;
  };
  for (int i0 = static_cast<int>(blockIdx.y) * kReconstructRows; i0 < g.m; i0 += static_cast<int>(gridDim.y) * kReconstructRows) {
    const int i_end = min(i0 + kReconstructRows, g.m);
    Ahead next = load(i0);
    for (int i = i0; i < i_end; ++i) {
      const Ahead here = next;
      if (i + 1 < i_end) next = load(i + 1);
      std::uint32_t r[kPer][N];
      Source::template residues<N>(here.residues, r);
      const double row_scale = scale_of(here.shift, static_cast<double>(g.alpha));
      float* out = g.c + static_cast<std::size_t>(i) * g.ldc;
      const auto value = [&](int u, float c) {
        double v = from_residues<N>(r[u]) * row_scale * column_scale[u];
        if (g.beta != 0.f) v += static_cast<double>(g.beta) * static_cast<double>(c);
        return static_cast<float>(v);
      };
      if (quads && (!kGuard || here.holds == kQuadHolds)) {
        float4 c{};
        if (g.beta != 0.f) c = *reinterpret_cast<const float4*>(out + j0);
        *reinterpret_cast<float4*>(out + j0) = {value(0, c.x), value(1, c.y), value(2, c.z), value(3, c.w)};
        continue;
      }
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        const int j = j0 + u;
        if (j >= g.n) break;
        if constexpr (kGuard)
          if ((here.holds >> 8 * u & 0xffu) == 0) continue;
        out[j] = value(u, g.beta != 0.f ? out[j] : 0.f);
      }
    }
  }
}

/// The elements the guard failed, as gpulab's FP32 path gives them (an FMA chain over k in order,
/// then alpha and beta): rung 5's 128 × 128 tiles (sgemm_device.cuh), op(A) and op(B) read in their
/// form, for the flagged tiles, their failed elements stored; blocks of other tiles return at once.
__global__ void __launch_bounds__(sgemm_device::k2dThreads)
    fp32_fix_up(GemmArgs g, GuardPlane guard, sgemm_detail::DeviceGate gate) {
  if (!gate.open()) return;
  sgemm_device::blocked_2d_tiles<true>(
      g, [&](int tile) { return guard.flags[tile * guard.tiles_n + static_cast<int>(blockIdx.x)] != 0; },  // (the whole block alike)
      [&](int i, int j) { return guard.bytes[static_cast<std::size_t>(i) * guard.ld + j] == 0; });
}

unsigned grid_for(std::size_t items, unsigned threads) {
  return static_cast<unsigned>(std::min<std::size_t>(ceil_div(std::max<std::size_t>(items, 1), threads), 65535u * 8));
}

/// An operand's lines, the rows of op(A) or the columns of op(B), as stored: `count` lines of k
/// values, along the stored rows (x[line·ld + p]) or down the stored columns (x[p·ld + line]).
struct Lines {
  const char* name;
  const float* x;
  std::size_t ld;
  int count;
  bool along_rows;
};

/// The chunks of k whose partial sums the norms of these lines take.
int norm_chunks(const Lines& lines, int k) {
  return static_cast<int>(ceil_div(static_cast<std::size_t>(k), lines.along_rows ? kNormChunk : kColumnNormChunk));
}

/// partial[chunk·count + line] for each of the operand's lines, norm_chunks(lines, k) chunks.
void launch_norms(const Lines& lines, int k, NormPartial* partial, cudaStream_t stream) {
  const int chunks = norm_chunks(lines, k);
  const std::string what = std::string("sums of squares and of magnitudes, and the largest, of op(") + lines.name + ")'s lines in chunks of " +
                           std::to_string(lines.along_rows ? kNormChunk : kColumnNormChunk);
  const auto count = static_cast<std::size_t>(lines.count);
  if (lines.along_rows)
    launch("sgemm_ozaki_row_norms", row_norms, {dim3(checked_grid(count, "sgemm ozaki"), capped_grid_y(chunks)), 256}, stream, lines.x,
           lines.ld, lines.count, k, chunks, partial)
        .work([what] { return what + ", along its rows as stored"; });
  else
    launch("sgemm_ozaki_column_norms", column_norms,
           {tile_grid(count, 32, static_cast<std::size_t>(chunks), 1, "sgemm ozaki"), dim3(32, kColumnNormLanes)},
           stream, lines.x, lines.ld, k, lines.count, chunks, partial)
        .work([what] { return what + ", down its columns as stored"; });
}

/// The operand's residue planes (count × depth int8 each, a line a row) and, with kGuard, its guard
/// levels (count × guard_depth).
template <int N, bool kGuard>
void launch_residues(const Lines& lines, int k, std::size_t depth, const LineFacts* facts, int levels, std::int8_t* out,
                     std::int8_t* guard, std::size_t guard_depth, cudaStream_t stream) {
  const std::string what = std::string("op(") + lines.name + ") scaled and rounded, its residues as int8" + (kGuard ? " and its guard levels" : "");
  const auto count = static_cast<std::size_t>(lines.count);
  if (lines.along_rows)
    launch("sgemm_ozaki_row_residues", row_residues<N, kGuard>, {tile_grid(depth / 4, 256, count, kResidueSteps, "sgemm ozaki residues"), 256},
           stream, lines.x, lines.ld, lines.count, k, depth, facts, levels, out, guard, guard_depth)
        .work([what] { return what + ", along its rows as stored"; });
  else
    launch("sgemm_ozaki_column_residues", column_residues<N, kGuard>,
           {tile_grid(count, 32, depth, kColumnTileDepth, "sgemm ozaki residues"), dim3(32, 8)},
           stream, lines.x, lines.ld, k, lines.count, depth, facts, levels, out, guard, guard_depth)
        .work([what] { return what + ", down its columns as stored, transposed"; });
}

/// The scheme with N moduli: the products by `chunk_gemm`, or gpulab's own where it is null; with
/// `guard` (own products only), fp32_tensor's bound element by element. False, with nothing
/// enqueued, where gpulab's pool cannot hold the scratch.
template <int N>
bool run_with(const GemmArgs& g, cudaStream_t stream, ChunkGemm chunk_gemm, bool guard) {
  if (g.m == 0 || g.n == 0) return true;
  const bool own = chunk_gemm == nullptr;
  if (own && !sgemm_detail::wgmma_supported())  // before any launch or allocation (wgmma_products relies on it)
    throw Error("sgemm ozaki: gpulab's INT8 products need a GPU of compute capability 9.0 (sm_90a)");
  if (guard && !own) throw Error("sgemm ozaki: the guard needs gpulab's own products");
  const int planes = N + (guard ? 1 : 0);
  const std::size_t elements = static_cast<std::size_t>(g.m) * g.n;
  const std::size_t depth = align_up(static_cast<std::size_t>(g.k), kDepthAlign);
  const int chunks = static_cast<int>(ceil_div(depth, kChunk));
  const std::size_t residue_ld = align_up(static_cast<std::size_t>(g.n), std::size_t{16});  // own: a byte a modulus and element
  // op(A)'s rows and op(B)'s columns, each read where it lies: a line along the stored rows (A as
  // stored, B stored n × k) takes the row kernels, one down the stored columns the column kernels,
  // which transpose it into its plane; both write the same planes and facts.
  const Lines a_lines{"A", g.a, g.lda, g.m, !g.a_transposed}, b_lines{"B", g.b, g.ldb, g.n, g.b_transposed};
  const int a_chunks = norm_chunks(a_lines, g.k), b_chunks = norm_chunks(b_lines, g.k);
  const std::size_t a_plane = static_cast<std::size_t>(g.m) * depth, b_plane = static_cast<std::size_t>(g.n) * depth;
  const int tiles_m = static_cast<int>(ceil_div(static_cast<std::size_t>(g.m), kFixTile));
  const int tiles_n = static_cast<int>(ceil_div(static_cast<std::size_t>(g.n), kFixTile));
  // One allocation, freed in stream order after the reconstruction: the residues and the guard's
  // levels (int8, planes of 16-byte rows), the products (cuBLAS's int32 sums, or gpulab's residues of
  // them as bytes), the norms' partial sums, each row's and column's facts, the guard's tile flags;
  // each part 16-byte aligned (7 planes of an odd count are not).
  const int guard_k = static_cast<int>(ceil_div(static_cast<std::size_t>(g.k), kGuardStride));
  const std::size_t guard_depth = guard ? align_up(static_cast<std::size_t>(guard_k), kDepthAlign) : 0;
  const std::size_t guard_bytes = (static_cast<std::size_t>(g.m) + g.n) * guard_depth;  // the guard's levels, A's then B's
  const std::size_t residue_bytes = align_up(N * (a_plane + b_plane) + guard_bytes, 16);
  const std::size_t products_bytes =
      align_up(own ? static_cast<std::size_t>(planes) * g.m * residue_ld : static_cast<std::size_t>(chunks) * N * elements * sizeof(std::int32_t),
               16);
  const std::size_t a_partials = static_cast<std::size_t>(a_chunks) * g.m, b_partials = static_cast<std::size_t>(b_chunks) * g.n;
  const std::size_t partial_bytes = align_up((a_partials + b_partials) * sizeof(NormPartial), 16);
  const std::size_t facts_bytes = (static_cast<std::size_t>(g.m) + g.n) * sizeof(LineFacts);
  const std::size_t flags_bytes = guard ? (static_cast<std::size_t>(tiles_m) * tiles_n + 1) * sizeof(int) : 0;  // and their count
  std::optional<StreamScratch> scratch;
  if (!take_scratch(scratch, residue_bytes + products_bytes + partial_bytes + facts_bytes + flags_bytes, stream)) return false;
  auto* a_residues = scratch->as<std::int8_t>();
  std::int8_t* b_residues = a_residues + N * a_plane;
  std::int8_t* a_guard = b_residues + N * b_plane;
  std::int8_t* b_guard = a_guard + static_cast<std::size_t>(g.m) * guard_depth;
  auto* products = reinterpret_cast<std::int32_t*>(a_residues + residue_bytes);
  auto* partial = reinterpret_cast<NormPartial*>(reinterpret_cast<std::byte*>(products) + products_bytes);
  auto* row_facts = reinterpret_cast<LineFacts*>(reinterpret_cast<std::byte*>(partial) + partial_bytes);
  LineFacts* col_facts = row_facts + g.m;
  auto* flags = reinterpret_cast<int*>(col_facts + g.n);

  NormPartial* column_partial = partial + a_partials;
  const auto n = static_cast<std::size_t>(g.n);
  const int levels = guard_levels(std::max(guard_k, 1));

  // k = 0 copies and multiplies nothing: the shifts are 0, every residue sum 0, and the
  // reconstruction writes alpha·0 + beta·C.
  if (g.k > 0) {
    launch_norms(a_lines, g.k, partial, stream);
    launch_norms(b_lines, g.k, column_partial, stream);
  }
  launch("sgemm_ozaki_row_facts", facts_of<N>, {grid_for(g.m, 256), 256}, stream, static_cast<const NormPartial*>(partial), a_chunks, g.m,
         levels, row_facts);
  launch("sgemm_ozaki_column_facts", facts_of<N>, {grid_for(g.n, 256), 256}, stream, static_cast<const NormPartial*>(column_partial),
         b_chunks, g.n, levels, col_facts);
  if (g.k > 0) {
    const auto residues = [&](auto kGuard) {
      launch_residues<N, kGuard>(a_lines, g.k, depth, row_facts, levels, a_residues, a_guard, guard_depth, stream);
      launch_residues<N, kGuard>(b_lines, g.k, depth, col_facts, levels, b_residues, b_guard, guard_depth, stream);
    };
    if (guard) residues(std::true_type{});
    else residues(std::false_type{});
  }

  auto grid = [&](int per) {
    return tile_grid(n, 256 * static_cast<std::size_t>(per), static_cast<std::size_t>(g.m), kReconstructRows, "sgemm ozaki");
  };
  const auto reconstruct_work = [] { return std::string("the Chinese remainder theorem (64-bit sums; 128-bit for 8 moduli), scaled back, alpha and beta"); };
  const auto* rows = static_cast<const LineFacts*>(row_facts);
  const auto* cols = static_cast<const LineFacts*>(col_facts);
  if (!own) {
    chunk_gemm(ChunkOperands{a_residues, b_residues, g.m, g.n, N, chunks, depth, products}, stream);
    launch("sgemm_ozaki_reconstruct", reconstruct<N, ChunkSums>, {grid(ChunkSums::kPer), 256}, stream,
           ChunkSums{static_cast<const std::int32_t*>(products), chunks, g.n, elements}, g, rows, cols, GuardPlane{},
           sgemm_detail::DeviceGate{})
        .work(reconstruct_work);
    return true;
  }
  auto* residues = reinterpret_cast<std::uint8_t*>(products);
  const std::size_t product_plane = static_cast<std::size_t>(g.m) * residue_ld;
  const ResidueBytes bytes{residues, residue_ld, product_plane};
  if (!guard) {
    wgmma_products(N, a_residues, b_residues, g.m, g.n, g.k, depth, residues, residue_ld, stream);
    launch("sgemm_ozaki_reconstruct", reconstruct<N, ResidueBytes>, {grid(ResidueBytes::kPer), 256}, stream, bytes, g, rows, cols,
           GuardPlane{}, sgemm_detail::DeviceGate{})
        .work(reconstruct_work);
    return true;
  }
  // The guard first: its codes, and each element's test, which leaves its verdict, flags the tiles
  // holding one that fails and counts them. Then, by that count on the GPU (no wait): where few
  // tiles are flagged, the scheme, its elements that fail left to the FP32 fix-up of their tiles;
  // where more than a 16th are (rung 5's tiles would cost more than 3xTF32 over all of C), 3xTF32
  // over all of C and nothing of the scheme (its bound, fp32_tensor's, is the guard's). Without the
  // pool's memory for 3xTF32's split operands the count is cleared: the fix-up takes every flagged
  // tile.
  std::uint8_t* codes = residues + N * product_plane;
  const GuardPlane plane{codes, residue_ld, flags, tiles_n, flags + static_cast<std::size_t>(tiles_m) * tiles_n};
  GPULAB_CUDA_CHECK(cudaMemsetAsync(flags, 0, flags_bytes, stream));
  wgmma_guard_product(GuardOperands{a_guard, b_guard, guard_k, guard_depth}, g.m, g.n, codes, residue_ld, stream);
  launch("sgemm_ozaki_guard_test", guard_test, {grid(4), 256}, stream, g, rows, cols, plane).work([] {
    return std::string("the guard's test of each element, E <= bound * L, its code replaced by its verdict; tiles holding one that fails "
                       "flagged, counted");
  });
  const int many = tiles_m * tiles_n / 16;
  const sgemm_detail::DeviceGate few_flagged{plane.flagged, many, false};
  if (!sgemm_detail::wgmma_tf32x3_gated(g, stream, {plane.flagged, many, true}))
    GPULAB_CUDA_CHECK(cudaMemsetAsync(plane.flagged, 0, sizeof(int), stream));
  wgmma_products(N, a_residues, b_residues, g.m, g.n, g.k, depth, residues, residue_ld, stream, few_flagged);
  launch("sgemm_ozaki_reconstruct", reconstruct<N, ResidueBytes, true>, {grid(ResidueBytes::kPer), 256}, stream, bytes, g, rows, cols,
         plane, few_flagged)
      .work([] { return std::string("the CRT (64-bit sums), scaled back, alpha and beta, where the guard holds"); });
  launch("sgemm_ozaki_fp32_fix_up", fp32_fix_up,
         {tile_grid(n, kFixTile, static_cast<std::size_t>(g.m), kFixTile, "sgemm ozaki fix-up"), sgemm_device::k2dThreads}, stream, g,
         plane, few_flagged)
      .work([] { return std::string("the elements that failed the guard as FP32 FMA chains, 128x128 tiles (flagged ones only)"); });
  return true;
}

}  // namespace

void product(const GemmArgs& g, cudaStream_t stream, int moduli, ChunkGemm chunk_gemm) {
  bool done = false;
  switch (moduli) {
    case 7: done = run_with<7>(g, stream, chunk_gemm, false); break;
    case 8: done = run_with<8>(g, stream, chunk_gemm, false); break;
    default: throw Error("sgemm ozaki: 7 or 8 moduli, not " + std::to_string(moduli));
  }
  if (!done) throw OutOfMemoryError("sgemm ozaki: gpulab's pool cannot hold the residues and products");
}

bool guarded_product(const GemmArgs& g, cudaStream_t stream) { return run_with<7>(g, stream, nullptr, true); }

}  // namespace gpulab::sgemm_ozaki
