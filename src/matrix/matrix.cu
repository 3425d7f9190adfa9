// The matrix library (gpulab/matrix.hpp): the top rung of the transpose, add and triangle-zeroing
// ladders, and the dispatch by shape and layout that makes them safe and fast on any matrix.
#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"
#include "lib/per_device.hpp"
#include "matrix/matrix_device.cuh"
#include "matrix/matrix_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/matrix.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace gpulab {
namespace {

std::string shape_text(std::size_t rows, std::size_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

/// Bytes a view's elements occupy (padding between rows included).
template <class T>
ByteRange bytes_of(MatrixView<T> v) {
  return rows_span(v.data, v.rows, v.cols * sizeof(float), v.pitch_bytes);
}
template <class T, class U>
bool same_matrix(MatrixView<T> x, MatrixView<U> y) {
  return static_cast<const void*>(x.data) == static_cast<const void*>(y.data) && x.pitch_bytes == y.pitch_bytes &&
         x.rows == y.rows && x.cols == y.cols;
}

/// Blocks of `kernel` the current device holds at once with `block` threads (cached per device).
template <auto Kernel>
unsigned resident_grid(unsigned block) {
  static PerDevice<unsigned> cache;
  return cache.get([&] { return std::max(1u, resident_blocks(reinterpret_cast<const void*>(Kernel), block)); });
}

// ---- transpose ---------------------------------------------------------------------------------------

constexpr unsigned kTile = 64;           // a 64 × 64 tile of A per block and step
constexpr unsigned kTileThreads = 256;   // 16 × 16 threads, each a 4 × 4 block of the tile
constexpr unsigned kSlotsPerRow = kTile / 4;

/// Where float4 slot `slot` of shared row `row` lives: slots XOR-swizzled by the row, so that the
/// eight lanes of a quarter warp hit eight different 16-byte bank groups both when writing four
/// rows' worth (the load phase) and when reading one row (the store phase). The vector mapping
/// puts columns 4gx…4gx+3 in one thread, hence (row / 4) mod 8; the scalar mapping columns gx,
/// gx+16, gx+32, gx+48, hence row mod 8.
template <bool kVector>
__device__ __forceinline__ unsigned swizzled(unsigned row, unsigned slot) {
  return row * kSlotsPerRow + (slot ^ ((kVector ? row >> 2 : row) & 7u));
}

/// The tile columns thread gx handles: 4gx + k (vectors) or gx + 16k (scalars: each load and
/// store instruction then covers 16 consecutive floats of a row, whatever the row's alignment).
template <bool kVector>
__device__ __forceinline__ unsigned tile_col(unsigned gx, unsigned k) {
  return kVector ? 4 * gx + k : gx + 16 * k;
}

/// The four elements of row i at tile columns tile_col(gx, 0…3) from j0 (zeros outside the matrix).
template <bool kVector>
__device__ __forceinline__ float4 load4(MatrixView<const float> m, std::size_t i, std::size_t j0, unsigned gx) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (i >= m.rows) return v;
  const float* row = row_of(m, i);
  if (kVector && j0 + 4 * gx + 4 <= m.cols) return *reinterpret_cast<const float4*>(row + j0 + 4 * gx);
  float* e = &v.x;
#pragma unroll
  for (unsigned k = 0; k < 4; ++k)
    if (const std::size_t j = j0 + tile_col<kVector>(gx, k); j < m.cols) e[k] = row[j];
  return v;
}

/// Stores the elements of `v` that fall inside the matrix at row i, tile columns tile_col(gx, 0…3).
template <bool kVector>
__device__ __forceinline__ void store4(MatrixView<float> m, std::size_t i, std::size_t j0, unsigned gx, float4 v) {
  if (i >= m.rows) return;
  float* row = row_of(m, i);
  if (kVector && j0 + 4 * gx + 4 <= m.cols) {
    *reinterpret_cast<float4*>(row + j0 + 4 * gx) = v;
    return;
  }
  const float* e = &v.x;
#pragma unroll
  for (unsigned k = 0; k < 4; ++k)
    if (const std::size_t j = j0 + tile_col<kVector>(gx, k); j < m.cols) row[j] = e[k];
}

/// b = aᵀ by 64 × 64 tiles. Thread (gx, gy) loads a 4 × 4 block of the tile, rows 4gy…4gy+3 and
/// columns tile_col(gx, 0…3), as four row vectors, transposes it in registers (the register
/// cache: each value is loaded once and leaves as part of a column vector) and writes the four
/// column vectors into the shared tile, which thus holds the tile transposed (row = a column of
/// a, slot q = a's rows 4q…4q+3); then each thread writes its part of four rows of that tile to b.
/// With kVector both global sides move 16 bytes per access; without, 4 bytes, still in runs of
/// 16 consecutive floats per half warp. The swizzle keeps both phases free of bank conflicts
/// (the scalar store phase reads single floats: at most 2-way).
template <bool kVector>
__global__ __launch_bounds__(kTileThreads) void transpose_tiles(MatrixView<const float> a, MatrixView<float> b,
                                                                 std::size_t tile_rows) {
  __shared__ float4 tile[kTile * kSlotsPerRow];
  const unsigned gx = threadIdx.x % kSlotsPerRow, gy = threadIdx.x / kSlotsPerRow;
  const std::size_t j0 = std::size_t{blockIdx.x} * kTile;
  for (std::size_t ti = blockIdx.y; ti < tile_rows; ti += gridDim.y) {
    const std::size_t i0 = ti * kTile;
    float4 v[4];
#pragma unroll
    for (unsigned r = 0; r < 4; ++r) v[r] = load4<kVector>(a, i0 + 4 * gy + r, j0, gx);
    tile[swizzled<kVector>(tile_col<kVector>(gx, 0), gy)] = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
    tile[swizzled<kVector>(tile_col<kVector>(gx, 1), gy)] = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
    tile[swizzled<kVector>(tile_col<kVector>(gx, 2), gy)] = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
    tile[swizzled<kVector>(tile_col<kVector>(gx, 3), gy)] = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
    __syncthreads();
#pragma unroll
    for (unsigned p = 0; p < 4; ++p) {
      const unsigned row = gy + 16 * p;  // row j0 + row of b: column j0 + row of a
      float4 out;
      if constexpr (kVector) {
        out = tile[swizzled<true>(row, gx)];
      } else {
        const auto* words = reinterpret_cast<const float*>(tile);
        float* e = &out.x;
#pragma unroll
        for (unsigned k = 0; k < 4; ++k) {
          const unsigned c = tile_col<false>(gx, k);  // b's column i0 + c: a's row, slot c / 4
          e[k] = words[4 * swizzled<false>(row, c / 4) + c % 4];
        }
      }
      store4<kVector>(b, j0 + row, i0, gx, out);
    }
    __syncthreads();
  }
}

// Rung 7: b's rows stored as aligned 16-byte vectors, whatever the pitch.
constexpr unsigned kRealignHalo = 4;       // rows of a loaded before the tile (b's rows start ≤ 3 floats early)
constexpr unsigned kRealignRowQuads = 24;  // float4 slots a b row takes in the shared tile: 18 used, room for the XOR
constexpr unsigned kRealignThreads = 256;
constexpr unsigned kRealignGroups = kRealignThreads / kTile;                // rows of a loaded at once
constexpr unsigned kRealignLoads = (kTile + kRealignHalo) / kRealignGroups;  // loads a thread and tile: 17

/// Floats from the 16-byte boundary at or before `p` (0…3).
__device__ __forceinline__ unsigned floats_past_boundary(const float* p) {
  return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p) / sizeof(float)) & 3u;
}

/// One 16-byte store to a 16-byte-aligned p. Written as PTX because, where a plain float4 store sat
/// beside its element-by-element fallback (rung 7's store phase), nvcc 13 merged the two paths into
/// four predicated 4-byte stores (SASS: 32 STG.E, no STG.E.128): on the H200 (ncu, 16383 × 16385
/// packed) 1.4× the L2 write requests of the fixed form and 47% more write sectors than b's bytes.
__device__ __forceinline__ void store_whole(float* p, float4 v) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

/// Word index of float f (0…70) of b row c in the shared tile. Float slot f / 4 of row c is XORed
/// with (c / 4) mod 8. When b's pitch is odd, the four rows of a group of four start at four
/// different offsets within a slot, so the 32 lanes of the load phase (32 consecutive rows c, the
/// same row of a) hit 32 banks; pitches of 2 mod 4 floats conflict 2-way. The store phase reads 8
/// consecutive slots of one row a quarter warp: a permutation of 8.
__device__ __forceinline__ unsigned realigned_word(unsigned c, unsigned f) {
  return 4 * (c * kRealignRowQuads + ((f / 4) ^ ((c / 4) & 7u))) + f % 4;
}

/// b = aᵀ with every store 16 bytes wide, also where b's rows are not 16-byte aligned (packed odd
/// widths), where rung 6 stores 4 bytes at a time. Block (x, ·) owns b's rows j0…j0+63; in b row c
/// the tile at i0 covers the columns [i0 − s_c, i0 − s_c + 64), where s_c (0…3) is how far past a
/// 16-byte boundary row c starts: 16 aligned float4 stores (the first and last tile of a row store
/// their partial vectors element by element). To fill those windows the block loads a's rows
/// i0 − 4 … i0 + 63 (a halo of 4 rows, also read by the tile before: from L2, not DRAM), 4 bytes a
/// thread and 32 consecutive columns a warp; each b row keeps the 64 floats of its window.
/// Compiled for 4 blocks an SM (the 64 registers it took anyway): nvcc then orders the 17 loads and
/// their stores differently, 672 SASS instructions against 688, and the kernel ran 1.08× faster on
/// an H200 and 1.01× on an H100 in one run each (2026-11-25, docs/matrix.md).
/// kStripMajor (rung 8): blockIdx.x walks the tile rows of strip blockIdx.y, so consecutive
/// blocks go down one strip and a wave of blocks writes whole rows of b (a few strips' 64 rows
/// each) instead of 256 bytes of every row of b (one tile row of every strip): 1.10–1.17× faster at
/// 8191×8193 and 16383×16385 packed on the H100 and the H200 (docs/matrix.md). The reads of a
/// are the ones then scattered, 256 bytes of every row; DRAM pays less for that than for
/// scattered writes.
template <bool kStripMajor>
__global__ __launch_bounds__(kRealignThreads, 4) void transpose_realigned(MatrixView<const float> a, MatrixView<float> b,
                                                                           std::size_t tile_rows) {
  __shared__ float4 tile[kTile * kRealignRowQuads];
  float* words = reinterpret_cast<float*>(tile);
  const std::size_t j0 = std::size_t{kStripMajor ? blockIdx.y : blockIdx.x} * kTile;
  // Load phase: a's column j0 + col (b's row), rows group, group + 4, … of the 68 loaded.
  const unsigned col = threadIdx.x % kTile, group = threadIdx.x / kTile;
  const bool col_inside = j0 + col < a.cols;
  const unsigned load_shift = col_inside ? floats_past_boundary(row_of(b, j0 + col)) : 0;
  // Store phase: slot q of b rows row0, row0 + 16, row0 + 32, row0 + 48.
  const unsigned q = threadIdx.x % 16, row0 = threadIdx.x / 16;
  for (std::size_t ti = kStripMajor ? blockIdx.x : blockIdx.y; ti < tile_rows; ti += kStripMajor ? gridDim.x : gridDim.y) {
    const auto i0 = static_cast<long long>(ti * kTile);
    if (col_inside) {
      // All 17 loads first, then the shared stores: a store right behind its load would leave one
      // load in flight a thread. Float f = r + s_c of b row c holds a's loaded row r; its window is
      // f in [4, 68), the rest lands in the row's slack, so only a's first and last rows need a
      // test (the same for a whole warp).
      float v[kRealignLoads] = {};
      const long long first_row = i0 - static_cast<long long>(kRealignHalo) + group;
      const char* column = reinterpret_cast<const char*>(a.data + j0 + col);
#pragma unroll
      for (unsigned k = 0; k < kRealignLoads; ++k) {
        const long long i = first_row + kRealignGroups * k;
        if (i >= 0 && i < static_cast<long long>(a.rows))
          v[k] = *reinterpret_cast<const float*>(column + i * static_cast<long long>(a.pitch_bytes));
      }
#pragma unroll
      for (unsigned k = 0; k < kRealignLoads; ++k) words[realigned_word(col, group + kRealignGroups * k + load_shift)] = v[k];
    }
    __syncthreads();
#pragma unroll
    for (unsigned p = 0; p < 4; ++p) {
      const unsigned c = row0 + 16 * p;
      if (j0 + c >= b.rows) break;
      float* out = row_of(b, j0 + c);
      const long long first = i0 - floats_past_boundary(out) + 4 * q;  // b's column of the slot's first float
      const float4 v = tile[realigned_word(c, kRealignHalo + 4 * q) / 4];
      if (first >= 0 && first + 4 <= static_cast<long long>(b.cols)) {
        store_whole(out + first, v);
      } else {
        const float* e = &v.x;
#pragma unroll
        for (unsigned k = 0; k < 4; ++k)
          if (first + k >= 0 && first + k < static_cast<long long>(b.cols)) out[first + k] = e[k];
      }
    }
    __syncthreads();
  }
}

/// A vector as a matrix: n elements `src_step` bytes apart copied to `dst_step` bytes apart.
__global__ __launch_bounds__(256) void copy_strided(const char* src, std::size_t src_step, char* dst,
                                                     std::size_t dst_step, std::size_t n) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; k < n; k += threads)
    *reinterpret_cast<float*>(dst + k * dst_step) = *reinterpret_cast<const float*>(src + k * src_step);
}

constexpr unsigned kPairTile = 32;

/// Square in place: block k takes the k-th tile pair (I ≤ J) in row-major order of the upper
/// triangle of tiles, reads both tiles into shared memory, then writes each transposed into the
/// other's place (a diagonal tile into its own). Each element is read once and written once.
__global__ __launch_bounds__(256) void transpose_pairs_in_place(MatrixView<float> m, std::size_t tiles,
                                                                 std::size_t pairs) {
  __shared__ float upper[kPairTile][kPairTile + 1], lower[kPairTile][kPairTile + 1];
  const unsigned tx = threadIdx.x % kPairTile, ty = threadIdx.x / kPairTile;  // 32 × 8
  const std::size_t n = m.rows;
  // Pairs before tile row I: I·tiles − I(I−1)/2.
  auto first = [&](std::size_t i) { return i * tiles - i * (i - 1) / 2; };
  for (std::size_t k = blockIdx.x; k < pairs; k += gridDim.x) {
    const double t2 = 2.0 * static_cast<double>(tiles) + 1.0;
    std::size_t ti = static_cast<std::size_t>((t2 - sqrt(t2 * t2 - 8.0 * static_cast<double>(k))) / 2.0);
    while (ti > 0 && first(ti) > k) --ti;
    while (first(ti + 1) <= k) ++ti;
    const std::size_t tj = ti + (k - first(ti));
    const std::size_t r0 = ti * kPairTile, c0 = tj * kPairTile;
    const bool diagonal = ti == tj;
    for (unsigned y = ty; y < kPairTile; y += 8) {
      if (r0 + y < n && c0 + tx < n) upper[y][tx] = row_of(m, r0 + y)[c0 + tx];
      if (!diagonal && c0 + y < n && r0 + tx < n) lower[y][tx] = row_of(m, c0 + y)[r0 + tx];
    }
    __syncthreads();
    for (unsigned y = ty; y < kPairTile; y += 8) {
      if (diagonal) {
        if (r0 + y < n && c0 + tx < n) row_of(m, r0 + y)[c0 + tx] = upper[tx][y];
      } else {
        if (r0 + y < n && c0 + tx < n) row_of(m, r0 + y)[c0 + tx] = lower[tx][y];
        if (c0 + y < n && r0 + tx < n) row_of(m, c0 + y)[r0 + tx] = upper[tx][y];
      }
    }
    __syncthreads();
  }
}

// ---- add ---------------------------------------------------------------------------------------------

__device__ __forceinline__ float4 axpby4(float alpha, float4 x, float beta, float4 y) {
  return make_float4(fmaf(alpha, x.x, beta * y.x), fmaf(alpha, x.y, beta * y.y), fmaf(alpha, x.z, beta * y.z),
                     fmaf(alpha, x.w, beta * y.w));
}

constexpr unsigned kAddBlock = 256;
constexpr unsigned kAddUnroll = 4;  // rung 2: vectors of each input in flight per thread

/// The library's add: a full grid, one vector (or, unaligned, one element) per thread, no loop
/// but a grid-stride guard for arrays past 2^31 blocks. On an H100 this ran 6% faster than a
/// resident grid with 1, 2 or 4 vectors in flight per thread (the journal: git show 539355e:docs/notes.md), and as fast as
/// cublasSgeam. Packed matrices are one vector each: `head` scalar elements first so that the rest
/// starts on a 16-byte boundary (the three share their misalignment). No __restrict__: c may be a
/// or b.
template <bool kVector>
__global__ __launch_bounds__(kAddBlock) void add_flat(float alpha, const float* a, float beta, const float* b, float* c,
                                                       std::size_t n, std::size_t head) {
  const std::size_t tid = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  if (!kVector) {
    for (std::size_t k = tid; k < n; k += threads) c[k] = fmaf(alpha, a[k], beta * b[k]);
    return;
  }
  if (tid < head) c[tid] = fmaf(alpha, a[tid], beta * b[tid]);
  const std::size_t vectors = (n - head) / 4;
  const auto* a4 = reinterpret_cast<const float4*>(a + head);
  const auto* b4 = reinterpret_cast<const float4*>(b + head);
  auto* c4 = reinterpret_cast<float4*>(c + head);
  for (std::size_t k = tid; k < vectors; k += threads) c4[k] = axpby4(alpha, a4[k], beta, b4[k]);
  const std::size_t tail = head + 4 * vectors + tid;
  if (tid < 4 && tail < n) c[tail] = fmaf(alpha, a[tail], beta * b[tail]);
}

/// Pitched matrices, the same full grid in two dimensions: x across a row's vectors (elements,
/// unaligned), y across the rows (looping past the grid's y limit); a narrow matrix's block
/// covers several rows (blockDim.y). A row's last cols mod 4 elements go to the threads just past
/// its last vector.
template <bool kVector>
__global__ __launch_bounds__(kAddBlock) void add_grid_rows(float alpha, MatrixView<const float> a, float beta,
                                                            MatrixView<const float> b, MatrixView<float> c) {
  const std::size_t k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t vectors = kVector ? c.cols / 4 : 0;
  for (std::size_t i = std::size_t{blockIdx.y} * blockDim.y + threadIdx.y; i < c.rows;
       i += std::size_t{gridDim.y} * blockDim.y) {
    const float* ar = row_of(a, i);
    const float* br = row_of(b, i);
    float* cr = row_of(c, i);
    if constexpr (kVector) {
      if (k < vectors) {
        reinterpret_cast<float4*>(cr)[k] =
            axpby4(alpha, reinterpret_cast<const float4*>(ar)[k], beta, reinterpret_cast<const float4*>(br)[k]);
        continue;
      }
    }
    if (const std::size_t j = 4 * vectors + (k - vectors); j < c.cols) cr[j] = fmaf(alpha, ar[j], beta * br[j]);
  }
}

__device__ __forceinline__ float axpby(float alpha, float x, float beta, float y) { return fmaf(alpha, x, beta * y); }
__device__ __forceinline__ float4 axpby(float alpha, float4 x, float beta, float4 y) { return axpby4(alpha, x, beta, y); }

/// Add rung 2: a warp per row (rows dealt over the resident grid's warps), the row's accesses (16
/// bytes when kVector, else 4) over the lanes with kAddUnroll of each input in flight, then (with
/// vectors) its last cols mod 4 elements.
template <bool kVector>
__global__ __launch_bounds__(kAddBlock) void add_rows(float alpha, MatrixView<const float> a, float beta,
                                                       MatrixView<const float> b, MatrixView<float> c) {
  using Access = std::conditional_t<kVector, float4, float>;
  constexpr std::size_t kStep = sizeof(Access) / sizeof(float);  // elements an access moves
  const unsigned lane = threadIdx.x % 32;
  const std::size_t warps = std::size_t{gridDim.x} * (blockDim.x / 32);
  const std::size_t accesses = c.cols / kStep;
  for (std::size_t i = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; i < c.rows; i += warps) {
    const auto* ar = reinterpret_cast<const Access*>(row_of(a, i));
    const auto* br = reinterpret_cast<const Access*>(row_of(b, i));
    auto* cr = reinterpret_cast<Access*>(row_of(c, i));
    std::size_t k = lane;
    for (; k + (kAddUnroll - 1) * 32 < accesses; k += kAddUnroll * 32) {
      Access x[kAddUnroll], y[kAddUnroll];
#pragma unroll
      for (unsigned u = 0; u < kAddUnroll; ++u) x[u] = ar[k + 32 * u];
#pragma unroll
      for (unsigned u = 0; u < kAddUnroll; ++u) y[u] = br[k + 32 * u];
#pragma unroll
      for (unsigned u = 0; u < kAddUnroll; ++u) cr[k + 32 * u] = axpby(alpha, x[u], beta, y[u]);
    }
    for (; k < accesses; k += 32) cr[k] = axpby(alpha, ar[k], beta, br[k]);
    if (const std::size_t j = kStep * accesses + lane; kVector && j < c.cols)
      row_of(c, i)[j] = fmaf(alpha, row_of(a, i)[j], beta * row_of(b, i)[j]);
  }
}

// ---- triangle zeroing --------------------------------------------------------------------------------

constexpr unsigned kZeroBlock = 256;
constexpr unsigned kSegment = 128;       // columns a warp writes at once: a vector per lane
constexpr unsigned kPiecesPerBlock = 64; // (row, segment) pieces of a block's tile

/// Writes only the triangle: block (x, y) takes band y (band_rows rows) and the x-th chunk
/// (segments · 128 columns) of the columns that band changes, so no block is given columns that
/// lie wholly outside the triangle's span of its band. Each warp writes the part of a (row,
/// segment) piece that lies in the row's zeroed span: one 16-byte store per lane for a piece wholly
/// inside (the tiles off the diagonal), scalar stores where the diagonal or the row's ends cut it.
/// Segments are laid on 16-byte boundaries of each row's own address (a packed row of odd width
/// starts mid-vector), so rows of any alignment take vectors. Nothing is read.
__global__ __launch_bounds__(kZeroBlock) void zero_triangle_bands(MatrixView<float> m, Triangle part,
                                                                   unsigned band_rows, std::size_t bands) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned segments = kPiecesPerBlock / band_rows;
  const std::size_t chunk_cols = std::size_t{segments} * kSegment;
  // One chunk more than the columns need: segments are shifted back by up to 3 columns.
  const std::size_t chunks = ceil_div(m.cols + 3, chunk_cols);
  for (std::size_t band = blockIdx.y; band < bands; band += gridDim.y) {
    const std::size_t r0 = band * band_rows;
    const std::size_t r1 = r0 + band_rows < m.rows ? r0 + band_rows : m.rows;
    // The band's chunks: from the first row's span start (upper) or to the last row's end (lower).
    const std::size_t first_chunk = part == Triangle::upper ? zeroed_span(r0, m.cols, part).first / chunk_cols : 0;
    const std::size_t end_chunk =
        part == Triangle::upper ? chunks : ceil_div(zeroed_span(r1 - 1, m.cols, part).last + 3, chunk_cols);
    const std::size_t chunk = first_chunk + blockIdx.x;
    if (chunk >= end_chunk) continue;
    for (unsigned piece = warp; piece < kPiecesPerBlock; piece += kZeroBlock / 32) {
      const std::size_t i = r0 + piece / segments;
      if (i >= r1) break;
      float* row = row_of(m, i);
      const std::size_t shift = floats_past_boundary(row);  // columns past a vector
      const std::size_t s1 = chunk * chunk_cols + std::size_t{piece % segments + 1} * kSegment - shift;
      const std::size_t s0 = s1 >= kSegment ? s1 - kSegment : 0;  // the first segment of a row may be short
      const ColumnSpan span = zeroed_span(i, m.cols, part);
      const std::size_t lo = span.first > s0 ? span.first : s0;
      const std::size_t hi = span.last < s1 ? span.last : s1;
      if (lo >= hi) continue;
      if (lo + kSegment == hi) {
        reinterpret_cast<float4*>(row + lo)[lane] = make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
#pragma unroll
        for (unsigned q = 0; q < kSegment / 32; ++q) {
          const std::size_t j = lo + q * 32 + lane;
          if (j < hi) row[j] = 0.f;
        }
      }
    }
  }
}

/// Matrices of at most 32 columns: a thread per row writes its span (a warp-wide segment would
/// leave most lanes idle), on a resident grid (a full grid was 41% slower on 2^26 x 1; the journal: git show 539355e:docs/notes.md).
__global__ __launch_bounds__(kZeroBlock) void zero_triangle_narrow(MatrixView<float> m, Triangle part) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < m.rows; i += threads) {
    const ColumnSpan span = zeroed_span(i, m.cols, part);
    float* row = row_of(m, i);
    for (std::size_t j = span.first; j < span.last; ++j) row[j] = 0.f;
  }
}

}  // namespace

// ---- the paths (matrix_paths.hpp) --------------------------------------------------------------------

namespace matrix_detail {

void require_valid_view(MatrixView<const float> v, const char* who) {
  if (v.rows == 0 || v.cols == 0) return;
  if (v.data == nullptr) throw Error(std::string(who) + ": null data for a " + shape_text(v.rows, v.cols) + " matrix");
  if (reinterpret_cast<std::uintptr_t>(v.data) % sizeof(float) != 0)
    throw Error(std::string(who) + ": data is not 4-byte aligned");
  if (v.pitch_bytes % sizeof(float) != 0 || v.pitch_bytes < v.cols * sizeof(float))
    throw Error(std::string(who) + ": pitch of " + std::to_string(v.pitch_bytes) + " bytes for " +
                std::to_string(v.cols) + " columns (it must be a multiple of 4 and at least cols x 4)");
  if (v.rows > 0x7FFFFFFFu || v.cols > 0x7FFFFFFFu)
    throw Error(std::string(who) + ": " + shape_text(v.rows, v.cols) + " has a side past 2^31 - 1");
}

bool rows_aligned16(MatrixView<const float> v) { return gpulab::rows_aligned16(v.data, v.pitch_bytes, v.rows); }

void transpose_tiled(MatrixView<const float> a, MatrixView<float> b, cudaStream_t stream) {
  if (a.rows == 0 || a.cols == 0) return;
  const std::size_t tile_rows = ceil_div(a.rows, kTile);
  const dim3 grid(checked_grid(ceil_div(a.cols, kTile), "transpose"),
                  capped_grid_y(tile_rows));
  const bool vector = rows_aligned16(a) && rows_aligned16(b);
  launch(vector ? "transpose_tiles<vector>" : "transpose_tiles<scalar>",
         vector ? transpose_tiles<true> : transpose_tiles<false>, {grid, kTileThreads}, stream, a, b, tile_rows)
      .work([] { return std::string("a 64x64 tile per step, 4x4 per thread"); });
}

void transpose_realigned_tiles(MatrixView<const float> a, MatrixView<float> b, cudaStream_t stream, bool strip_major) {
  if (a.rows == 0 || a.cols == 0) return;
  // b's rows start up to 3 floats before their tile's column: one more tile reaches the last ones.
  const std::size_t tile_rows = ceil_div(a.rows + kRealignHalo - 1, kTile), strips = ceil_div(a.cols, kTile);
  // Strip-major takes a grid row per strip: up to 65535 strips (4 194 240 columns of a). Wider
  // matrices keep rung 7's order: the same one where a has a single tile row (64 rows or fewer);
  // with more, a GiB or more of a, they lose rung 8's gain.
  strip_major = strip_major && strips <= 65535;
  const dim3 grid = strip_major ? dim3(checked_grid(tile_rows, "transpose"), static_cast<unsigned>(strips))
                                : dim3(checked_grid(strips, "transpose"), capped_grid_y(tile_rows));
  launch(strip_major ? "transpose_realigned<strip-major>" : "transpose_realigned",
         strip_major ? transpose_realigned<true> : transpose_realigned<false>, {grid, kRealignThreads}, stream, a, b, tile_rows)
      .work([] { return std::string("64 rows of b per block, each row's tile on its own 16-byte boundary"); });
}

void transpose_square_in_place(MatrixView<float> m, cudaStream_t stream) {
  if (m.rows == 0) return;
  const std::size_t tiles = ceil_div(m.rows, kPairTile);
  const std::size_t pairs = tiles * (tiles + 1) / 2;
  const auto grid = static_cast<unsigned>(std::min<std::size_t>(pairs, 0x7FFFFFFFu));
  launch("transpose_pairs_in_place", transpose_pairs_in_place, {grid, 256}, stream, m, tiles, pairs)
      .work([] { return std::string("a pair of 32x32 tiles swapped"); });
}

void add_by_rows(float alpha, MatrixView<const float> a, float beta, MatrixView<const float> b, MatrixView<float> c,
                 cudaStream_t stream) {
  if (c.rows == 0 || c.cols == 0) return;
  const bool vector = rows_aligned16(a) && rows_aligned16(b) && rows_aligned16(c);
  const unsigned resident = vector ? resident_grid<add_rows<true>>(kAddBlock) : resident_grid<add_rows<false>>(kAddBlock);
  const auto grid = static_cast<unsigned>(std::min<std::size_t>(resident, ceil_div(c.rows, kAddBlock / 32)));
  launch(vector ? "add_rows<vector>" : "add_rows<scalar>", vector ? add_rows<true> : add_rows<false>, {grid, kAddBlock},
         stream, alpha, a, beta, b, c)
      .work([] { return std::string("a warp per row"); });
}

}  // namespace matrix_detail

// ---- the library -------------------------------------------------------------------------------------

using namespace matrix_detail;

void transpose(MatrixView<const float> a, MatrixView<float> b, cudaStream_t stream) {
  require_valid_view(a, "gpulab::transpose (a)");
  require_valid_view(b, "gpulab::transpose (b)");
  if (b.rows != a.cols || b.cols != a.rows)
    throw Error("gpulab::transpose: b is " + shape_text(b.rows, b.cols) + ", the transpose of a " +
                shape_text(a.rows, a.cols) + " matrix is " + shape_text(a.cols, a.rows));
  if (a.rows == 0 || a.cols == 0) return;
  if (same_matrix(a, b)) {
    transpose_square_in_place(b, stream);  // same shape both ways: square
    return;
  }
  if (overlap(bytes_of(a), bytes_of(b)))
    throw Error("gpulab::transpose: a and b overlap (only the same square matrix may be transposed in place)");
  if (a.rows == 1 || a.cols == 1) {
    // A vector: the transpose is a copy, strided where a row or column has a pitch.
    const std::size_t n = a.rows * a.cols;
    const std::size_t src_step = a.rows == 1 ? sizeof(float) : a.pitch_bytes;
    const std::size_t dst_step = b.rows == 1 ? sizeof(float) : b.pitch_bytes;
    if (src_step == sizeof(float) && dst_step == sizeof(float)) {
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(b.data, a.data, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
      return;
    }
    const auto grid = static_cast<unsigned>(std::min<std::size_t>(ceil_div(n, 256), resident_grid<copy_strided>(256)));
    launch("copy_strided", copy_strided, {grid, 256}, stream, reinterpret_cast<const char*>(a.data), src_step,
           reinterpret_cast<char*>(b.data), dst_step, n)
        .work([] { return std::string("elements a grid apart"); });
    return;
  }
  // Rung 8 (rung 7 strip by strip) where b's rows are not 16-byte aligned and b takes a quarter of
  // the L2 or more: rung 6 then stores 4 bytes at a time, partial sectors that cost DRAM time once
  // they leave the L2. Measured on the H100 and the H200 (docs/matrix.md), rung 8 ÷ rung 6: 16383 x
  // 16385 1.4-1.5x, 3001 x 2999 1.16-1.21x, 2047 x 2049 (17 MB) 1.04-1.09x, level at 1500 x 1501 (9 MB),
  // 0.94-1.0x below, where the L2 merges the partial sectors and rung 6's lighter loads win. Where
  // b's rows are aligned, rung 6 stores whole vectors or runs.
  if (!rows_aligned16(b) && 4 * b.rows * b.pitch_bytes >= current_l2_bytes())
    transpose_realigned_tiles(a, b, stream, true);
  else
    transpose_tiled(a, b, stream);
}

void add(float alpha, MatrixView<const float> a, float beta, MatrixView<const float> b, MatrixView<float> c,
         cudaStream_t stream) {
  require_valid_view(a, "gpulab::add (a)");
  require_valid_view(b, "gpulab::add (b)");
  require_valid_view(c, "gpulab::add (c)");
  if (a.rows != c.rows || a.cols != c.cols || b.rows != c.rows || b.cols != c.cols)
    throw Error("gpulab::add: shapes differ: a " + shape_text(a.rows, a.cols) + ", b " + shape_text(b.rows, b.cols) +
                ", c " + shape_text(c.rows, c.cols));
  if (c.rows == 0 || c.cols == 0) return;
  for (MatrixView<const float> in : {a, b})
    if (!same_matrix(in, c) && overlap(bytes_of(in), bytes_of(c)))
      throw Error("gpulab::add: c overlaps an input without being it (same data and pitch)");
  const std::size_t row_bytes = c.cols * sizeof(float);
  if (a.pitch_bytes == row_bytes && b.pitch_bytes == row_bytes && c.pitch_bytes == row_bytes) {
    // Packed: one vector each, rows ignored.
    const std::size_t n = c.rows * c.cols;
    const auto misalignment = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16; };
    const bool vector = misalignment(a.data) == misalignment(c.data) && misalignment(b.data) == misalignment(c.data);
    const std::size_t head = std::min<std::size_t>(n, (16 - misalignment(c.data)) % 16 / sizeof(float));
    const std::size_t per_thread = vector ? 4 : 1;
    const auto grid = static_cast<unsigned>(std::min<std::size_t>(ceil_div(n, per_thread * kAddBlock), 0x7FFFFFFFu));
    launch(vector ? "add_flat<vector>" : "add_flat<scalar>", vector ? add_flat<true> : add_flat<false>, {grid, kAddBlock},
           stream, alpha, a.data, beta, b.data, c.data, n, head)
        .work([&] { return std::string("the matrices as vectors, ") + (vector ? "a vector" : "an element") + " per thread"; });
    return;
  }
  // Pitched: a thread per vector of each row when every row is 16-byte aligned, else per element.
  const bool vector = rows_aligned16(a) && rows_aligned16(b) && rows_aligned16(c);
  const std::size_t per_row = vector ? c.cols / 4 + c.cols % 4 : c.cols;
  // Threads across a row: a warp at least, the whole block for wide rows. (Narrow rows sharing a
  // warp, 4 lanes a row at 100000×7, ran no faster on the H100: 0.0245 against 0.0249 ms, docs/matrix.md.)
  unsigned across = 32;
  while (across < kAddBlock && across < per_row) across *= 2;
  const dim3 block(across, kAddBlock / across);
  const dim3 grid(checked_grid(ceil_div(per_row, across), "add"),
                  capped_grid_y(ceil_div(c.rows, block.y)));
  launch(vector ? "add_grid_rows<vector>" : "add_grid_rows<scalar>", vector ? add_grid_rows<true> : add_grid_rows<false>,
         {grid, block}, stream, alpha, a, beta, b, c)
      .work([&] { return std::string("a row's ") + (vector ? "vectors" : "elements") + ", one per thread"; });
}

void zero_triangle(MatrixView<float> m, Triangle part, cudaStream_t stream) {
  require_valid_view(m, "gpulab::zero_triangle");
  if (part != Triangle::upper && part != Triangle::lower) throw Error("gpulab::zero_triangle: unknown triangle");
  if (m.rows == 0 || m.cols == 0) return;
  if (m.cols <= 32) {
    const auto grid = static_cast<unsigned>(
        std::min<std::size_t>(ceil_div(m.rows, kZeroBlock), resident_grid<zero_triangle_narrow>(kZeroBlock)));
    launch("zero_triangle_narrow", zero_triangle_narrow, {grid, kZeroBlock}, stream, m, part)
        .work([] { return std::string("a thread per row"); });
    return;
  }
  // Bands of 16 rows by 512 columns; a matrix of fewer rows takes bands of one row by 8192 columns,
  // so that its blocks are not mostly idle warps.
  const unsigned band_rows = m.rows >= 16 ? 16 : 1;
  const std::size_t chunk_cols = std::size_t{kPiecesPerBlock / band_rows} * kSegment;
  const std::size_t bands = ceil_div(m.rows, band_rows);
  // The widest band: the first (upper) or the last (lower).
  const std::size_t widest_span = part == Triangle::upper ? m.cols - std::min<std::size_t>(1, m.cols)
                                                           : zeroed_span(m.rows - 1, m.cols, part).last;
  if (widest_span == 0) return;  // nothing to zero (a single row's lower part, a single column's upper)
  const std::size_t widest = part == Triangle::upper ? ceil_div(m.cols + 3, chunk_cols) : ceil_div(widest_span + 3, chunk_cols);
  const dim3 grid(checked_grid(widest, "zero_triangle"), capped_grid_y(bands));
  launch("zero_triangle_bands", zero_triangle_bands, {grid, kZeroBlock}, stream, m, part, band_rows, bands)
      .work([&] { return std::to_string(band_rows) + " rows x " + std::to_string(chunk_cols) + " columns per block"; });
}

}  // namespace gpulab
