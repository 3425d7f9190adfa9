// The bin of a float value, on the GPU and in the CPU reference alike (so the tests compare the
// same arithmetic): equal-width bins over [lo, hi] as torch.histc computes them, and the bins between
// sorted edges as torch.histogram's. A value that is not counted (outside, NaN) gets bin m.
#pragma once

#include "histogram/bin_rule.hpp"
#include "lib/host_device.hpp"
#include "lib/unsigned_divider.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace gpulab {

/// The bin of x = (v − lo)·m / (hi − lo): truncated, m − 1 where the rounding puts it at m.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t quotient_bin(T x, std::uint32_t m) {
  return x < static_cast<T>(m) ? static_cast<std::uint32_t>(x) : m - 1;
}

/// torch.histc's rule: (v − lo)·m / (hi − lo) in T, truncated; v == hi (and any value the rounding
/// puts at m) into bin m − 1; v outside [lo, hi], and NaN, to m.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t range_bin(T v, std::uint32_t m, T lo, T hi) {
  if (!(v >= lo && v <= hi)) return m;  // (NaN fails both)
  return quotient_bin((v - lo) * static_cast<T>(m) / (hi - lo), m);
}

/// y / d rounded as the division rounds it, from r = 1/d rounded (d and r normal, d far above
/// underflow: range_rule says where): q0 = y·r is within an ulp of y/d, the remainder y − d·q0 is
/// exact in an FMA, and q0 + r·(y − d·q0) rounds to the quotient (Markstein's theorem; the CPU tests
/// compare it with the division for every float32 y in [1, 4) and many divisors). Three instructions
/// where the division takes eight (MUFU.RCP, FCHK, five FMAs and a branch).
template <class T>
GPULAB_HOST_DEVICE T divide_by_reciprocal(T y, T d, T r) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) {
    const float q0 = __fmul_rn(y, r);
    return __fmaf_rn(r, __fmaf_rn(-d, q0, y), q0);
  } else {
    const double q0 = __dmul_rn(y, r);
    return __fma_rn(r, __fma_rn(-d, q0, y), q0);
  }
#else
  const T q0 = y * r;
  return std::fma(r, std::fma(-d, q0, y), q0);
#endif
}

/// The b in [low, high) with edges[b] ≤ v < edges[b + 1], given edges[low] ≤ v and that b is below
/// high: a binary search, the first edge above v less one.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t search_edges(T v, const T* edges, std::uint32_t low, std::uint32_t high) {
  while (high - low > 1) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (edges[mid] <= v) low = mid;
    else high = mid;
  }
  return low;
}

/// torch.histogram's rule over m + 1 sorted edges: the b with edges[b] ≤ v < edges[b + 1], the last
/// bin closed (v == edges[m] in m − 1); v outside [edges[0], edges[m]], and NaN, to m.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t edge_bin(T v, const T* edges, std::uint32_t m) {
  if (!(v >= edges[0] && v <= edges[m])) return m;
  return search_edges(v, edges, 0, m);
}

// The rules of the counting kernels (bin_rule.hpp says what a rule has): RangeRule and EdgeRule
// give a value's bin among m (m: not counted), WholeInput and PerRow count them into m + 1 bins of
// the whole input or of each row.

/// histogram_range's rule: range_bin, its division made from 1/(hi − lo) where reciprocal is set
/// (range_rule), else divided.
template <class T>
struct RangeRule {
  using Value = T;
  std::uint32_t m;
  T lo, hi;
  T reciprocal = 0;
  GPULAB_HOST_DEVICE std::uint32_t operator()(T v) const {
    if (reciprocal == 0) return range_bin(v, m, lo, hi);
    // Made for every value, then selected: no branch (a value outside gives some bin, or NaN's m − 1).
    const std::uint32_t bin = quotient_bin(divide_by_reciprocal((v - lo) * static_cast<T>(m), hi - lo, reciprocal), m);
    return v >= lo && v <= hi ? bin : m;
  }
};

/// The rule of m bins over [lo, hi] (finite, lo < hi), with the reciprocal where
/// divide_by_reciprocal holds: hi − lo and its reciprocal normal, the width 2^(digits + 2) above
/// underflow (so that a remainder near a bin's edge is exact).
template <class T>
RangeRule<T> range_rule(std::uint32_t m, T lo, T hi) {
  const T width = hi - lo, reciprocal = T(1) / width;
  const T floor = std::ldexp(std::numeric_limits<T>::min(), std::numeric_limits<T>::digits + 2);
  const bool holds = std::isfinite(width) && width >= floor && std::isnormal(reciprocal);
  return {m, lo, hi, holds ? reciprocal : T(0)};
}

/// histogram_edges's rule: edge_bin over m + 1 edges in device memory. The kernels that stage it in
/// shared memory also stage a guide: m equal cells over [edges[0], edges[m]], each with the bin of
/// its lower boundary, so that a value's search starts between the bins of its cell's neighbours
/// (about 2 steps for spread edges, where a whole search takes log2 m, each a dependent shared load
/// that lanes' different addresses make conflict). The guide is a hint: each end it gives is
/// checked against the edges and replaced by the whole range where it does not hold (cells below
/// the arithmetic's resolution, an overflowing span), so the bin is edge_bin's exactly.
template <class T>
struct EdgeRule {
  using Value = T;
  const T* edges;
  std::uint32_t m;
  const std::uint32_t* guide = nullptr;  // m + 1 bins of cell boundaries, once staged
  T cells_per_unit = 0;                  // a value's cell: (v - edges[0]) · cells_per_unit

  GPULAB_HOST_DEVICE std::uint32_t operator()(T v) const {
    if (guide == nullptr) return edge_bin(v, edges, m);
    if (!(v >= edges[0] && v <= edges[m])) return m;
    const T x = (v - edges[0]) * cells_per_unit;  // NaN where the span is 0 and v - edges[0] too: the last cell
    const std::uint32_t cell = x < static_cast<T>(m) ? static_cast<std::uint32_t>(x) : m - 1;
    std::uint32_t low = guide[cell > 0 ? cell - 1 : 0], high = guide[cell + 2 < m ? cell + 2 : m] + 1;
    if (edges[low] > v) low = 0;                    // edges[low] ≤ v, as edge_bin starts
    if (high >= m || edges[high] <= v) high = m;    // the bin is below high
    return search_edges(v, edges, low, high);
  }

  /// The edges, then the guide (16-byte aligned).
  std::size_t staged_bytes() const { return guide_offset() + (std::size_t{m} + 1) * sizeof(std::uint32_t); }
  GPULAB_HOST_DEVICE std::size_t guide_offset() const { return ((std::size_t{m} + 1) * sizeof(T) + 15) / 16 * 16; }

  /// The guide's scale: m cells over the edges' span (0 or inf where the span is inf or 0).
  static GPULAB_HOST_DEVICE T cells_per_unit_of(const T* edges, std::uint32_t m) { return static_cast<T>(m) / (edges[m] - edges[0]); }
  /// Cell c's entry of the guide: the bin of its lower boundary (m − 1 past the last edge).
  static GPULAB_HOST_DEVICE std::uint32_t guide_entry(const T* edges, std::uint32_t m, T per_unit, std::uint32_t c) {
    const std::uint32_t bin = edge_bin(edges[0] + static_cast<T>(c) / per_unit, edges, m);
    return bin < m ? bin : m - 1;  // (a boundary past edges[m] by rounding, or NaN)
  }

#ifdef __CUDACC__
  /// The rule reading the edges and the guide from `shared` (staged_bytes() there, 16-byte
  /// aligned), which the block's threads fill (every thread of the block must call it); the caller
  /// synchronises the block before the first use.
  __device__ EdgeRule staged(void* shared) const {
    T* copy = static_cast<T*>(shared);
    auto* cells = reinterpret_cast<std::uint32_t*>(static_cast<char*>(shared) + guide_offset());
    for (std::uint32_t k = threadIdx.x; k <= m; k += blockDim.x) copy[k] = edges[k];
    __syncthreads();
    const T per_unit = cells_per_unit_of(copy, m);
    for (std::uint32_t c = threadIdx.x; c <= m; c += blockDim.x) cells[c] = guide_entry(copy, m, per_unit, c);
    return {copy, m, cells, per_unit};
  }
#endif
};

/// The whole input's histogram: value v counted among m + 1 bins (the last for values not counted).
template <class Rule>
struct WholeInput {
  using Value = typename Rule::Value;
  Rule rule;
  GPULAB_HOST_DEVICE std::uint32_t bins() const { return rule.m + 1; }
  GPULAB_HOST_DEVICE std::uint32_t operator()(Value v) const { return rule(v); }
  std::size_t staged_bytes() const { return gpulab::staged_bytes(rule); }
#ifdef __CUDACC__
  __device__ WholeInput staged(void* shared) const { return {gpulab::staged(rule, shared)}; }
#endif
};

/// A histogram per row of `cols` values: value i counted among its row's m + 1 bins (the last for
/// values not counted), row r's at r·(m + 1); rows·(m + 1) < 2^32. Where there is one row,
/// WholeInput does without the division.
template <class Rule>
struct PerRow {
  using Value = typename Rule::Value;
  Rule rule;
  UnsignedDivider cols;
  std::uint32_t rows;
  GPULAB_HOST_DEVICE std::uint32_t bins() const { return rows * (rule.m + 1); }
  GPULAB_HOST_DEVICE std::uint32_t operator()(Value v, std::size_t i) const {
    return cols.divide(static_cast<std::uint32_t>(i)) * (rule.m + 1) + rule(v);
  }
  std::size_t staged_bytes() const { return gpulab::staged_bytes(rule); }
#ifdef __CUDACC__
  __device__ PerRow staged(void* shared) const { return {gpulab::staged(rule, shared), cols, rows}; }
#endif
};

}  // namespace gpulab
