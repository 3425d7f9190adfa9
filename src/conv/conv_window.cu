// The conv library's register sliding windows: a thread owns a run of 16 pixels of a row and walks
// down a band of rows, keeping the rows above, at and below in registers, so that each input byte
// is loaded once per thread-row instead of nine times.
//   sliding_window: one channel value per 32-bit register and multiply (any filter);
//   lanes: two channels in the two 16-bit halves of each register, so one multiply serves both,
//          and the next row loaded while this one is computed (filters whose weights' magnitudes
//          sum to at most 128, which keeps every sum inside its half);
//   realigned lanes: the lanes on rows that start anywhere (a packed image whose rows are not a
//          multiple of 16 bytes), still with 16-byte loads and stores.
#include "conv/conv_device.cuh"
#include "conv/conv_paths.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"
#include "lib/per_device.hpp"

#include <gpulab/error.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace gpulab::conv_detail {
namespace {

using conv_device::ConvArgs;

constexpr int kRunPixels = 16, kRunWords = 3 * kRunPixels / 4;  // 48 bytes: 12 words, three 16-byte vectors
constexpr int kWindowRows = 8;  // 32 left too few threads below 16K (measured: 4K 0.130 ms vs the tile's 0.114)
constexpr unsigned kWindowBlock = 128;

__device__ __forceinline__ unsigned pixel_bytes(const ConvArgs& a, int x, int y) {
  return static_cast<unsigned>(conv_device::neighbour(a, x, y, 0)) | static_cast<unsigned>(conv_device::neighbour(a, x, y, 1)) << 8 |
         static_cast<unsigned>(conv_device::neighbour(a, x, y, 2)) << 16;
}

/// The 12 words of row y's run from pixel x0, byte by byte under the border rule; past a ragged
/// right end, the pixel the border rule puts at x = width (only the last pixel's neighbour is used).
__device__ __forceinline__ void run_bytes(const ConvArgs& a, int x0, int y, unsigned* words) {
#pragma unroll
  for (int w = 0; w < kRunWords; ++w) {
    unsigned word = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int q = 4 * w + b, x = min(x0 + q / 3, a.width);
      word |= static_cast<unsigned>(conv_device::neighbour(a, x, y, q % 3)) << (8 * b);
    }
    words[w] = word;
  }
}

/// The run as three 16-byte loads (row yy of the image, the run inside it, rows 16-byte aligned).
__device__ __forceinline__ void run_vectors(const ConvArgs& a, int x0, int yy, unsigned* words) {
  const uint4* p = reinterpret_cast<const uint4*>(a.in + static_cast<std::size_t>(yy) * a.in_pitch + 3 * static_cast<std::size_t>(x0));
#pragma unroll
  for (int v = 0; v < 3; ++v) {
    const uint4 w = p[v];
    words[4 * v] = w.x, words[4 * v + 1] = w.y, words[4 * v + 2] = w.z, words[4 * v + 3] = w.w;
  }
}

/// Writes the run's 12 words to row y: 16-byte stores where the run is whole and rows aligned.
template <bool kVector>
__device__ __forceinline__ void store_run(const ConvArgs& a, int x0, int y, const unsigned* out) {
  std::uint8_t* dst = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x0);
  if (kVector && x0 + kRunPixels <= a.width) {
    uint4* p = reinterpret_cast<uint4*>(dst);
#pragma unroll
    for (int v = 0; v < 3; ++v) p[v] = {out[4 * v], out[4 * v + 1], out[4 * v + 2], out[4 * v + 3]};
  } else {
    for (int q = 0; q < 3 * min(kRunPixels, a.width - x0); ++q) dst[q] = static_cast<std::uint8_t>(out[q / 4] >> (8 * (q % 4)));
  }
}

// ---- one channel a register ------------------------------------------------------------------------
//
// 16 pixels × kWindowRows rows a thread, the 3-row window in 3 × 14 registers; a byte is taken from
// its word by a constant shift (the loops are unrolled).

/// One row of a thread's window: its 16 pixels as 12 words, the pixels left and right of them.
struct WindowRow {
  unsigned centre[kRunWords];
  unsigned left, right;  // 3 bytes each, in the low bytes
  __device__ __forceinline__ int byte(int q) const {  // q in [−3, 51): byte q of the run
    if (q < 0) return static_cast<int>((left >> (8 * (q + 3))) & 0xFFu);
    if (q >= 3 * kRunPixels) return static_cast<int>((right >> (8 * (q - 3 * kRunPixels))) & 0xFFu);
    return static_cast<int>((centre[q / 4] >> (8 * (q % 4))) & 0xFFu);
  }
};

/// Row y (−1 ≤ y ≤ height, the border rule applied) of the run starting at pixel x0.
template <bool kVector>
__device__ __forceinline__ void load_row(const ConvArgs& a, int x0, int y, WindowRow& r) {
  const int yy = conv_math::border_index(y, a.height, a.border);
  if (kVector && yy >= 0 && x0 + kRunPixels <= a.width)
    run_vectors(a, x0, yy, r.centre);
  else
    run_bytes(a, x0, y, r.centre);
  r.left = pixel_bytes(a, x0 - 1, y);
  r.right = pixel_bytes(a, min(x0 + kRunPixels, a.width), y);  // past a ragged end: the border rule's pixel
}

template <bool kVector>
__global__ void __launch_bounds__(kWindowBlock) sliding_window(ConvArgs a) {
  const int x0 = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * kRunPixels;
  if (x0 >= a.width) return;
  const int bands = (a.height + kWindowRows - 1) / kWindowRows;
  for (int band = static_cast<int>(blockIdx.y); band < bands; band += static_cast<int>(gridDim.y)) {
    const int y_begin = band * kWindowRows, y_end = min(a.height, y_begin + kWindowRows);
    WindowRow rows[3];
    load_row<kVector>(a, x0, y_begin - 1, rows[0]);
    load_row<kVector>(a, x0, y_begin, rows[1]);
    for (int y = y_begin; y < y_end; ++y) {
      load_row<kVector>(a, x0, y + 1, rows[2]);
      unsigned out[kRunWords] = {};
#pragma unroll
      for (int q = 0; q < 3 * kRunPixels; ++q) {  // output byte q: pixel q / 3, channel q % 3
        int s = 0;
#pragma unroll
        for (int dy = 0; dy < 3; ++dy)
#pragma unroll
          for (int dx = 0; dx < 3; ++dx) s += a.filter.k[3 * dy + dx] * rows[dy].byte(q + 3 * (dx - 1));
        const int v = a.filter.divisor == 1 ? (s < 0 ? 0 : s > 255 ? 255 : s) : conv_math::round_clamp(s, a.filter.divisor, a.twice_divisor);
        out[q / 4] |= static_cast<unsigned>(v) << (8 * (q % 4));
      }
      store_run<kVector>(a, x0, y, out);
      rows[0] = rows[1];
      rows[1] = rows[2];
    }
  }
}

// ---- two channels a register -------------------------------------------------------------------------
//
// A word of 4 image bytes b0 b1 b2 b3 is split into an "even" pair (b0 | b2 << 16) and an "odd"
// pair (b1 | b3 << 16), one PRMT each. Byte q's neighbours in the row are q ± 3, so the even
// outputs' left neighbours are the odd pair of the word before, their right neighbours the high
// half of this word's odd pair with the low half of the next one's, and so on: every operand of a
// multiply is two channels of two pixels, and one 32-bit multiply-add serves both. Exact: the sum
// of the products is exact modulo 2^32 whatever the carries between halves along the way, and with
// a bias of 2^15 in each half and |s| ≤ 255 · 128 < 2^15 (the weights' magnitudes summing to at
// most 128), each half of the total is exactly 2^15 + s.

constexpr unsigned kLaneBias = 0x80008000u;  // 2^15 in each half
constexpr unsigned kLanePairOne = 0x00010001u;
constexpr long kLaneWeightLimit = 128;         // Σ|k| ≤ 128: |s| ≤ 32640 < 2^15
// Measured on the H100 (docs/conv.md): 5 blocks an SM (≤ 96 registers, no spills) against 4 at
// 128 registers, bands of 3 rows against 2, 4, 8 and 16: 8K 0.079 ms against 0.089 for 4 blocks
// and 8 rows, 16K 0.277 against 0.308 (more warps to hide the loads, a shorter last wave).
constexpr int kLaneMinBlocks = 5;
constexpr int kLaneBandRows = 3;
// Where 3-row bands of 128-thread blocks take more than one wave, blocks of one warp: an SM's slot
// frees as each warp ends its band, not when the slowest of four does, and a row's last block holds
// one warp of runs, not four (docs/conv.md: 4K 7% faster, 16K 0.5% slower).
constexpr unsigned kLaneWarpBlock = 32;

/// The filter as the lanes kernel takes it: divisor made positive (weights and divisor negated
/// together leave every quotient as it was), and what the rounding of each half needs.
struct LaneFilter {
  unsigned k[9];       // the weights, as 32-bit words for the multiplies
  unsigned divisor;    // d > 0
  unsigned ceiling;    // power-of-two d ≤ 128: 2^15 + 255·d in each half (the largest sum that rounds to ≤ 255)
  unsigned offset;     // and 2^15 − d/2 in each half
  unsigned shift;      // and log2 d
  UnsignedDivider twice_divisor{2};  // other d: 2d
};

/// A run of row y and the words either side: w[0] holds the 4 bytes before the run (its upper 3:
/// the pixel on the left), w[1..12] the run, w[13] the 4 bytes after it (its lower 3: the pixel on
/// the right).
struct LaneRow {
  unsigned w[kRunWords + 2];
};

__device__ __forceinline__ unsigned even_pair(unsigned w) { return __byte_perm(w, 0, 0x4240); }
__device__ __forceinline__ unsigned odd_pair(unsigned w) { return __byte_perm(w, 0, 0x4341); }
/// The upper half of pair x and the lower half of pair y.
__device__ __forceinline__ unsigned straddle(unsigned x, unsigned y) { return __byte_perm(x, y, 0x5432); }

/// Row y (−1 ≤ y ≤ height) of the run from x0 (rows 16-byte aligned), the border rule applied.
__device__ __forceinline__ void load_lane_row(const ConvArgs& a, int x0, int y, LaneRow& r) {
  const int yy = conv_math::border_index(y, a.height, a.border);
  if (yy < 0) {  // the zero border's rows
#pragma unroll
    for (unsigned& w : r.w) w = 0;
    return;
  }
  if (x0 + kRunPixels <= a.width)
    run_vectors(a, x0, yy, r.w + 1);
  else
    run_bytes(a, x0, y, r.w + 1);
  const auto* row = reinterpret_cast<const unsigned*>(a.in + static_cast<std::size_t>(yy) * a.in_pitch + 3 * static_cast<std::size_t>(x0));
  r.w[0] = x0 > 0 ? row[-1] : pixel_bytes(a, -1, y) << 8;
  r.w[kRunWords + 1] = x0 + kRunPixels + 2 <= a.width ? row[kRunWords] : pixel_bytes(a, min(x0 + kRunPixels, a.width), y);
}

/// Adds row r's contribution with weights k[0..2] (left, centre, right) to the 12 even and 12 odd
/// pair sums of the run.
__device__ __forceinline__ void add_lane_row(const LaneRow& r, const unsigned* k, unsigned* even, unsigned* odd) {
#pragma unroll
  for (int w = 0; w < kRunWords; ++w) {  // the run's word w is r.w[w + 1]
    even[w] += k[0] * odd_pair(r.w[w]) + k[1] * even_pair(r.w[w + 1]) + k[2] * straddle(odd_pair(r.w[w + 1]), odd_pair(r.w[w + 2]));
    odd[w] += k[0] * straddle(even_pair(r.w[w]), even_pair(r.w[w + 1])) + k[1] * odd_pair(r.w[w + 1]) + k[2] * even_pair(r.w[w + 2]);
  }
}

/// The four output bytes of a word from its even and odd pair sums (each half 2^15 + s).
template <bool kPowerOfTwo>
__device__ __forceinline__ unsigned lane_bytes(unsigned even, unsigned odd, const LaneFilter& f) {
  // s < 0 rounds to ≤ 0 and clamps to 0 (d > 0): lift each half to at least 2^15 (s = 0).
  even = __vmaxu2(even, kLaneBias);
  odd = __vmaxu2(odd, kLaneBias);
  if constexpr (kPowerOfTwo) {
    // (s + d/2) >> log2 d for s in [0, 255·d], in both halves at once; bits shifted across the
    // halves land above the byte that is kept.
    even = (__vminu2(even, f.ceiling) - f.offset) >> f.shift;
    odd = (__vminu2(odd, f.ceiling) - f.offset) >> f.shift;
    return __byte_perm(even, odd, 0x6240);  // bytes 0 and 2 of each: even, odd, even, odd
  } else {
    // (2s + d) / 2d, s = half − 2^15 ≥ 0, clamped to 255.
    const auto round = [&](unsigned half) { return min(255u, f.twice_divisor.divide(2u * half + f.divisor - 0x10000u)); };
    return round(even & 0xFFFFu) | round(odd & 0xFFFFu) << 8 | round(even >> 16) << 16 | round(odd >> 16) << 24;
  }
}

// ---- rows at any alignment ------------------------------------------------------------------------
//
// A run starts 48 bytes after the one before, so all runs of a row share one offset from the 16-byte
// boundaries: the row's. Loads take the five aligned vectors that hold the run's 56 bytes and
// funnel-shift its 14 words out of them. Stores go from each lane's first 16-byte boundary: lane i
// writes three aligned vectors holding the end of its run and the start of lane i + 1's (four words
// by shuffle); lane 0 writes its own bytes before its boundary, lane 31 none of the next warp's, and
// the bytes of partial vectors (those, and the row's ends) go in aligned pieces of 8, 4, 2 and 1.
// Measured on the H100 (docs/conv.md): the word offset by selects rather than a four-way branch
// (fewer stalls for instructions: 7% faster at 8K), the pieces without loops.

/// out[i] = the 4 bytes at byte `offset` + 4i of in[] (offset < 16): the word offset in two steps of
/// selects (2 words, then 1), then the byte offset by funnel shifts; no branches.
template <int kOut, int kIn>
__device__ __forceinline__ void realign_words(const unsigned (&in)[kIn], unsigned offset, unsigned (&out)[kOut]) {
  static_assert(kIn >= kOut + 4);
  unsigned by_two[kOut + 2], by_one[kOut + 1];
#pragma unroll
  for (int i = 0; i < kOut + 2; ++i) by_two[i] = offset & 8 ? in[i + 2] : in[i];
#pragma unroll
  for (int i = 0; i < kOut + 1; ++i) by_one[i] = offset & 4 ? by_two[i + 1] : by_two[i];
  const unsigned shift = 8 * (offset & 3);
#pragma unroll
  for (int i = 0; i < kOut; ++i) out[i] = __funnelshift_r(by_one[i], by_one[i + 1], shift);
}

/// Row y (−1 ≤ y ≤ height) of the run from x0, rows at any alignment, the border rule applied.
/// Runs whose five vectors would reach outside the row (its first and last) go byte by byte.
__device__ __forceinline__ void load_lane_row_realigned(const ConvArgs& a, int x0, int y, LaneRow& r) {
  const int yy = conv_math::border_index(y, a.height, a.border);
  if (yy < 0 || x0 >= a.width) {  // the zero border's rows; lanes past the row's end only pass words on
#pragma unroll
    for (unsigned& w : r.w) w = 0;
    return;
  }
  const std::uint8_t* row = a.in + static_cast<std::size_t>(yy) * a.in_pitch;
  const std::uint8_t* first = row + 3 * static_cast<std::size_t>(x0) - 4;  // the run's 56 bytes from here
  const auto offset = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(first) & 15u);
  const auto* vectors = reinterpret_cast<const uint4*>(first - offset);
  if (x0 > 0 && reinterpret_cast<const std::uint8_t*>(vectors + 5) <= row + 3 * static_cast<std::size_t>(a.width)) {
    unsigned words[20];
#pragma unroll
    for (int v = 0; v < 5; ++v) {
      const uint4 w = vectors[v];
      words[4 * v] = w.x, words[4 * v + 1] = w.y, words[4 * v + 2] = w.z, words[4 * v + 3] = w.w;
    }
    realign_words(words, offset, r.w);
  } else {
    run_bytes(a, x0, y, r.w + 1);
    r.w[0] = pixel_bytes(a, x0 - 1, y) << 8;
    r.w[kRunWords + 1] = pixel_bytes(a, min(x0 + kRunPixels, a.width), y);
  }
}

/// The 16-byte vector's bytes from byte b on, b a multiple of the piece taken from them (≤ 8).
__device__ __forceinline__ unsigned long long vector_bits(const unsigned* w, unsigned b) {
  const unsigned long long low = w[0] | static_cast<unsigned long long>(w[1]) << 32;
  const unsigned long long high = w[2] | static_cast<unsigned long long>(w[3]) << 32;
  return (b < 8 ? low : high) >> (8 * (b & 7));
}

/// Bytes [lo, hi) of the 16 at `vector` (16-byte aligned), from its four words: the whole vector at
/// once, else pieces of 8, 4, 2 and 1 bytes each on its own alignment (the row's last runs).
__device__ __forceinline__ void store_vector_bytes(std::uint8_t* vector, const unsigned* w, int lo, int hi) {
  if (lo == 0 && hi == 16) {
    *reinterpret_cast<uint4*>(vector) = {w[0], w[1], w[2], w[3]};
    return;
  }
  for (int b = lo; b < hi;) {
    int size = 8;
    while (size > 1 && ((b & (size - 1)) != 0 || b + size > hi)) size >>= 1;
    const unsigned long long bits = vector_bits(w, static_cast<unsigned>(b));
    std::uint8_t* p = vector + b;
    if (size == 8)
      *reinterpret_cast<unsigned long long*>(p) = bits;
    else if (size == 4)
      *reinterpret_cast<unsigned*>(p) = static_cast<unsigned>(bits);
    else if (size == 2)
      *reinterpret_cast<unsigned short*>(p) = static_cast<unsigned short>(bits);
    else
      *p = static_cast<std::uint8_t>(bits);
    b += size;
  }
}

/// Bytes [0, n) of the 16 at `vector` (16-byte aligned), n < 16: at most four pieces, no loop.
__device__ __forceinline__ void store_vector_prefix(std::uint8_t* vector, const unsigned* w, unsigned n) {
  if (n & 8) *reinterpret_cast<unsigned long long*>(vector) = vector_bits(w, 0);
  if (n & 4) *reinterpret_cast<unsigned*>(vector + (n & 8)) = static_cast<unsigned>(vector_bits(w, n & 8));
  if (n & 2) *reinterpret_cast<unsigned short*>(vector + (n & 12)) = static_cast<unsigned short>(vector_bits(w, n & 12));
  if (n & 1) vector[n & 14] = static_cast<std::uint8_t>(vector_bits(w, n & 14));
}

/// Bytes [b, 16) of the 16 at `vector` (16-byte aligned), 0 < b < 16: at most four pieces, no loop.
__device__ __forceinline__ void store_vector_suffix(std::uint8_t* vector, const unsigned* w, unsigned b) {
  if (b & 1) vector[b] = static_cast<std::uint8_t>(vector_bits(w, b)), ++b;
  if (b & 2) *reinterpret_cast<unsigned short*>(vector + b) = static_cast<unsigned short>(vector_bits(w, b)), b += 2;
  if (b & 4) *reinterpret_cast<unsigned*>(vector + b) = static_cast<unsigned>(vector_bits(w, b)), b += 4;
  if (b & 8) *reinterpret_cast<unsigned long long*>(vector + b) = vector_bits(w, b);
}

/// Writes the run's 12 words to row y, rows at any alignment. Every lane of the warp calls it
/// together (a shuffle), lanes past the row's end too.
__device__ __forceinline__ void store_run_realigned(const ConvArgs& a, int x0, int y, const unsigned* out) {
  std::uint8_t* row = a.out + static_cast<std::size_t>(y) * a.out_pitch;
  std::uint8_t* mine = row + 3 * static_cast<std::size_t>(x0);
  // Bytes from the run's start to its first 16-byte boundary: the same for every run of the row.
  const auto head = static_cast<unsigned>(-reinterpret_cast<std::uintptr_t>(mine) & 15u);
  unsigned words[20] = {};  // 16 bytes before the run (never written), the run, the next lane's first 16 bytes
#pragma unroll
  for (int w = 0; w < kRunWords; ++w) words[4 + w] = out[w];
#pragma unroll
  for (int w = 0; w < 4; ++w) words[16 + w] = __shfl_down_sync(0xFFFFFFFFu, out[w], 1);
  unsigned vectors[16];  // the aligned vectors from the boundary − 16 on
  realign_words(words, head, vectors);
  const int lane = static_cast<int>(threadIdx.x % 32);
  std::uint8_t* first = mine + head - 16;
  std::uint8_t* row_end = row + 3 * static_cast<std::size_t>(a.width);
  // Every run but the row's last: vectors 1-3 lie inside the row (they start at the run's boundary).
  if (first + 64 <= row_end) {
#pragma unroll
    for (int v = 1; v < 3; ++v)
      *reinterpret_cast<uint4*>(first + 16 * v) = {vectors[4 * v], vectors[4 * v + 1], vectors[4 * v + 2], vectors[4 * v + 3]};
    // Lane 31: not the next warp's bytes (its lane 0 writes them); lane 0: its bytes before its boundary.
    if (lane != 31 || head == 0)
      *reinterpret_cast<uint4*>(first + 48) = {vectors[12], vectors[13], vectors[14], vectors[15]};
    else
      store_vector_prefix(first + 48, vectors + 12, 16 - head);
    if (lane == 0 && head != 0) store_vector_suffix(first, vectors, 16 - head);
    return;
  }
  // The row's last runs: what of the row each vector holds, [row, row_end) minus first.
  const long row_lo = row - first, row_hi = row_end - first;
#pragma unroll
  for (int v = 0; v < 4; ++v) {
    int lo = 0, hi = 16;
    if (v == 0) lo = lane == 0 ? 16 - static_cast<int>(head) : 16;
    if (v == 3 && lane == 31) hi = 16 - static_cast<int>(head);
    lo = static_cast<int>(max(static_cast<long>(lo), row_lo - 16 * v));
    hi = static_cast<int>(min(static_cast<long>(hi), row_hi - 16 * v));
    if (lo < hi) store_vector_bytes(first + 16 * v, vectors + 4 * v, lo, hi);
  }
}

template <bool kPowerOfTwo, bool kRealigned>
__global__ void __launch_bounds__(kWindowBlock, kLaneMinBlocks) lanes(ConvArgs a, LaneFilter f, int band_rows) {
  const int x0 = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * kRunPixels;
  // Realigned, lanes past the row's end stay while their warp has a run: they pass words on by shuffle.
  if ((kRealigned ? x0 - static_cast<int>(threadIdx.x % 32) * kRunPixels : x0) >= a.width) return;
  const auto load = [&](int y, LaneRow& r) {
    if constexpr (kRealigned)
      load_lane_row_realigned(a, x0, y, r);
    else
      load_lane_row(a, x0, y, r);
  };
  const int bands = (a.height + band_rows - 1) / band_rows;
  for (int band = static_cast<int>(blockIdx.y); band < bands; band += static_cast<int>(gridDim.y)) {
    const int y_begin = band * band_rows, y_end = min(a.height, y_begin + band_rows);
    LaneRow above, at, below;
    load(y_begin - 1, above);
    load(y_begin, at);
    load(y_begin + 1, below);
    for (int y = y_begin; y < y_end; ++y) {
      LaneRow next = below;
      if (y + 1 < y_end) load(y + 2, next);  // in flight while this row is computed
      unsigned even[kRunWords], odd[kRunWords];
#pragma unroll
      for (int w = 0; w < kRunWords; ++w) even[w] = odd[w] = kLaneBias;
      add_lane_row(above, f.k, even, odd);
      add_lane_row(at, f.k + 3, even, odd);
      add_lane_row(below, f.k + 6, even, odd);
      unsigned out[kRunWords];
#pragma unroll
      for (int w = 0; w < kRunWords; ++w) out[w] = lane_bytes<kPowerOfTwo>(even[w], odd[w], f);
      if constexpr (kRealigned)
        store_run_realigned(a, x0, y, out);
      else
        store_run<true>(a, x0, y, out);
      above = at;
      at = below;
      below = next;
    }
  }
}

LaneFilter lane_filter(const Filter3x3& filter) {
  const int sign = filter.divisor < 0 ? -1 : 1;
  LaneFilter f{};
  for (int i = 0; i < 9; ++i) f.k[i] = static_cast<unsigned>(sign * filter.k[i]);
  f.divisor = static_cast<unsigned>(sign * filter.divisor);
  f.twice_divisor = UnsignedDivider(2 * f.divisor);
  if (f.divisor <= 128 && (f.divisor & (f.divisor - 1)) == 0) {
    while ((1u << f.shift) < f.divisor) ++f.shift;
    f.ceiling = kLanePairOne * (0x8000u + 255u * f.divisor);
    f.offset = kLanePairOne * (0x8000u - f.divisor / 2);
  }
  return f;
}

/// The four lanes kernels, by 2 · realigned + power of two (the divisor a shift), and their names.
using LanesKernel = void (*)(ConvArgs, LaneFilter, int);
constexpr LanesKernel kLanesKernels[] = {lanes<false, false>, lanes<true, false>, lanes<false, true>, lanes<true, true>};
constexpr const char* kLanesNames[] = {"conv_lanes<divide>", "conv_lanes<shift>", "conv_lanes_realigned<divide>",
                                       "conv_lanes_realigned<shift>"};

/// Blocks of lanes kernel `which` the current device holds at once (asked once per device).
unsigned per_device_resident_lanes(int which) {
  static PerDevice<unsigned> resident[4];
  return resident[which].get([&] { return resident_blocks(reinterpret_cast<const void*>(kLanesKernels[which]), kWindowBlock); });
}

/// Bands of kLaneBandRows rows, fewer where the whole image fits in one wave of 128-thread blocks;
/// beyond one wave, one-warp blocks.
void launch_lanes(const ConvArgs& a, cudaStream_t stream, bool realigned) {
  const LaneFilter f = lane_filter(a.filter);
  const int which = 2 * static_cast<int>(realigned) + static_cast<int>(f.ceiling != 0);
  const long x_blocks = (a.width + static_cast<long>(kWindowBlock) * kRunPixels - 1) / (static_cast<long>(kWindowBlock) * kRunPixels);
  const long resident = per_device_resident_lanes(which);  // 128-thread blocks
  const long y_blocks = std::max(1L, resident / x_blocks);
  const int band_rows = static_cast<int>(std::clamp((a.height + y_blocks - 1) / y_blocks, 1L, static_cast<long>(kLaneBandRows)));
  const bool beyond_one_wave = band_rows == kLaneBandRows && x_blocks * ((a.height + kLaneBandRows - 1) / kLaneBandRows) > resident;
  const unsigned block = beyond_one_wave ? kLaneWarpBlock : kWindowBlock;
  const dim3 grid = tile_grid(static_cast<std::size_t>(a.width), block * kRunPixels, static_cast<std::size_t>(a.height),
                              static_cast<std::size_t>(band_rows), "gpulab::conv3x3");
  launch(kLanesNames[which], kLanesKernels[which], {grid, block}, stream, a, f, band_rows).work([band_rows, realigned, block] {
    return "16 pixels x " + std::to_string(band_rows) + " rows a thread, " + std::to_string(block) +
           " threads a block, two channels a register, the next row in flight" + (realigned ? ", rows at any alignment" : "");
  });
}

dim3 window_grid(const ConvArgs& a) {
  return tile_grid(static_cast<std::size_t>(a.width), kWindowBlock * kRunPixels, static_cast<std::size_t>(a.height), kWindowRows,
                   "gpulab::conv3x3");
}

}  // namespace

bool rows_aligned16(const ConvArgs& a) {
  const auto rows = static_cast<std::size_t>(a.height);
  return gpulab::rows_aligned16(a.in, a.in_pitch, rows) && gpulab::rows_aligned16(a.out, a.out_pitch, rows);
}

bool lanes_fit(const ConvArgs& a) { return lane_weights_fit(a) && rows_aligned16(a); }

bool lane_weights_fit(const ConvArgs& a) { return conv_math::weight_magnitude(a.filter) <= kLaneWeightLimit; }

void run_sliding_window(const ConvArgs& a, cudaStream_t stream) {
  const bool vector = rows_aligned16(a);
  launch(vector ? "conv_sliding_window<vector>" : "conv_sliding_window<bytes>", vector ? sliding_window<true> : sliding_window<false>,
         {window_grid(a), kWindowBlock}, stream, a)
      .work([] { return std::string("16 pixels x 8 rows a thread, a 3-row window in registers"); });
}

void run_lanes(const ConvArgs& a, cudaStream_t stream) {
  if (!lanes_fit(a)) throw Error("conv lanes: needs 16-byte-aligned rows and weights whose magnitudes sum to at most 128");
  launch_lanes(a, stream, false);
}

void run_lanes_realigned(const ConvArgs& a, cudaStream_t stream) {
  if (!lane_weights_fit(a)) throw Error("conv realigned lanes: needs weights whose magnitudes sum to at most 128");
  launch_lanes(a, stream, true);
}

}  // namespace gpulab::conv_detail
